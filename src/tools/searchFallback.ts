// Pure-JS search used when ripgrep is not installed. It follows ripgrep's defaults closely enough to
// give the same output on ordinary trees: hidden files skipped, root .gitignore honoured, binary
// files skipped, results sorted by path.
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Options as GlobOptions } from 'fast-glob';
import picomatch from 'picomatch';
import { ToolError } from './types.js';
import { looksBinary } from './fileText.js';
import { READ_LIMITS, readOwnFileSync } from '../util/readRegularFileSync.js';
import { readDirNames, shownBytes } from '../util/fileNames.js';

function readSearchable(f: string): Buffer | null {
  try {
    return readOwnFileSync(f, { maxBytes: READ_LIMITS.search, links: 'any' });
  } catch {
    return null;
  }
}

function readTextOrEmpty(f: string): string {
  return readSearchable(f)?.toString('utf8') ?? '';
}

/** One search hit, as ripgrep and the fallback both report it. */
export interface Match {
  path: string;
  line: number;
  text: string;
}

/** What a search found, and the files or folders it left out because their names are not UTF-8 (as shown, project-relative). */
export interface SearchResult {
  matches: Match[];
  leftOut: string[];
}

async function gitignorePatterns(root: string): Promise<string[]> {
  const text = readTextOrEmpty(path.join(root, '.gitignore'));
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const anchored = line.startsWith('/');
    const body = line.replace(/^\//, '').replace(/\/$/, '');
    const prefix = anchored || body.includes('/') ? '' : '**/';
    out.push(`${prefix}${body}`, `${prefix}${body}/**`);
  }
  return out;
}

export async function searchWithJs(root: string, abs: string, pattern: string, glob: string | undefined, cap: number): Promise<SearchResult> {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    throw new ToolError(`invalid regular expression: ${(err as Error).message}`);
  }
  const st = await fs.stat(abs).catch(() => null);
  if (!st) throw new ToolError(`path not found: ${path.relative(root, abs) || '.'}`);
  const leftOut: string[] = [];
  const files = (st.isFile() ? [abs] : await listFiles(root, abs, glob, leftOut))
    .map((f) => path.relative(root, f))
    .sort()
    .map((f) => path.join(root, f));
  const matches: Match[] = [];
  for (const f of files) {
    // Only regular files of a readable size (a FIFO would block; several links are withheld by search_code).
    const buf = readSearchable(f);
    if (!buf || looksBinary(buf)) continue;
    const lines = buf.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    for (let i = 0; i < lines.length; i++) {
      if (re.test(lines[i])) {
        matches.push({ path: path.relative(root, f).split(path.sep).join('/'), line: i + 1, text: lines[i] + '\n' });
        if (matches.length >= cap) return { matches, leftOut: leftOut.sort() };
      }
    }
  }
  return { matches, leftOut: leftOut.sort() };
}

/** The files a search of folder `abs` reads; a file or folder whose name is not UTF-8 is noted in `leftOut` instead. */
async function listFiles(root: string, abs: string, glob: string | undefined, leftOut: string[]): Promise<string[]> {
  const patterns = glob ? [`**/${glob.replace(/^\*\*\//, '')}`] : ['**/*'];
  const ignore = ['**/.git/**', ...(await gitignorePatterns(root))];
  const note = noteLeftOut(root, abs, patterns, ignore, leftOut);
  // Sync: the walk's directory reads are then the readdirSync given here, which keeps names that are not UTF-8 out.
  const rels = (await import('fast-glob')).default.sync(patterns, {
    cwd: abs,
    dot: false,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore,
    suppressErrors: true,
    fs: { readdirSync: readdirLeavingOut(note) },
  });
  return rels.map((r) => path.join(abs, r));
}

/**
 * Notes a file or folder whose name is not UTF-8 where the search would have looked (not hidden, ignored or
 * outside the glob; matched on the name as text, which only decides whether it is mentioned).
 */
function noteLeftOut(root: string, abs: string, patterns: string[], ignore: string[], leftOut: string[]) {
  const wanted = picomatch(patterns, { dot: false });
  const ignored = picomatch(ignore, { dot: true });
  return (dir: string, d: Dirent<Buffer>) => {
    const rel = path.relative(abs, path.join(dir, d.name.toString('utf8')));
    const hidden = rel.split(path.sep).some((s) => s.startsWith('.'));
    if (ignored(rel) || !(d.isDirectory() ? !hidden : d.isFile() && wanted(rel))) return;
    leftOut.push(path.join(path.relative(root, dir), shownBytes(d.name)));
  };
}

/** fast-glob's directory reads, by bytes: a name that is not UTF-8 never enters its walk (as text it names a path that does not exist, or another file's). */
function readdirLeavingOut(note: (dir: string, d: Dirent<Buffer>) => void): NonNullable<GlobOptions['fs']>['readdirSync'] {
  const read = (dir: string, opts?: { withFileTypes?: boolean }): Dirent[] | string[] => {
    const { entries, undecodable } = readDirNames(dir);
    for (const d of undecodable) note(dir, d);
    if (!opts?.withFileTypes) return entries.map((e) => e.name);
    return entries.map(({ name, dirent }) => Object.assign(dirent, { name }) as unknown as Dirent);
  };
  return read as NonNullable<GlobOptions['fs']>['readdirSync'];
}
