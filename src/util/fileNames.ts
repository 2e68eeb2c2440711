// File names are bytes; Node's string paths are UTF-8. A name that is not valid UTF-8 (a 0xFF byte, Latin-1
// text) read as a string turns into U+FFFD, a path that does not exist: a check made on it checks nothing
// while the file itself stays there for a program to read. Walks that decide what is safe read names as
// bytes and treat a name that does not survive decoding as one they cannot judge.
import fs from 'node:fs';
import path from 'node:path';

/** The name as a string when its bytes are exactly that string's UTF-8; null when decoding would change it. */
export function decodedName(name: Buffer): string | null {
  const s = name.toString('utf8');
  return Buffer.byteLength(s) === name.length && Buffer.from(s, 'utf8').equals(name) ? s : null;
}

/** A directory's entries, with the names that are not UTF-8 apart (as bytes, for the caller to judge or reach). */
export function readDirNames(dir: string | Buffer): { entries: { name: string; dirent: fs.Dirent<Buffer> }[]; undecodable: fs.Dirent<Buffer>[] } {
  const entries: { name: string; dirent: fs.Dirent<Buffer> }[] = [];
  const undecodable: fs.Dirent<Buffer>[] = [];
  for (const d of fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const name = decodedName(d.name);
    if (name === null) undecodable.push(d);
    else entries.push({ name, dirent: d });
  }
  return { entries, undecodable };
}

/** `dir/name` as bytes, for a name that has no string form. */
export function joinBytes(dir: string | Buffer, name: Buffer): Buffer {
  const base = typeof dir === 'string' ? Buffer.from(dir, 'utf8') : dir;
  return Buffer.concat([base, Buffer.from(path.sep), name]);
}

/** How a name that is not UTF-8 is shown: its valid parts as text, each other byte as \xNN. */
export function shownBytes(p: Buffer | string): string {
  if (typeof p === 'string') return p;
  let out = '';
  let i = 0;
  while (i < p.length) {
    let j = i;
    while (j < p.length && p[j] < 0x80) j++;
    out += p
      .subarray(i, j)
      .toString('latin1')
      .replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    if (j >= p.length) break;
    out += `\\x${p[j].toString(16).padStart(2, '0')}`;
    i = j + 1;
  }
  return out;
}
