import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodedName, joinBytes, readDirNames, shownBytes } from '../../src/util/fileNames.js';
import { tempDir } from '../helpers/env.js';

const ff = (before: string, after = '') => Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);

describe('file names that are not UTF-8', () => {
  it('decodes a name only when its bytes are exactly its UTF-8', () => {
    expect(decodedName(Buffer.from('naïve-日本.txt'))).toBe('naïve-日本.txt');
    expect(decodedName(ff('notes-', '.txt'))).toBeNull();
    // A lone continuation byte, a cut multi-byte character, an overlong encoding of '/'.
    expect(decodedName(Buffer.from([0x61, 0x80]))).toBeNull();
    expect(decodedName(Buffer.from([0xe6, 0x97]))).toBeNull();
    expect(decodedName(Buffer.from([0xc0, 0xaf]))).toBeNull();
    // U+FFFD written as itself is a name like any other.
    expect(decodedName(Buffer.from('a\uFFFDb'))).toBe('a\uFFFDb');
  });

  it('lists a folder with the undecodable names apart, reachable by bytes', () => {
    const dir = tempDir('devx-names-');
    fs.writeFileSync(path.join(dir, 'plain.txt'), 'p');
    fs.writeFileSync(joinBytes(dir, ff('odd-', '.txt')), 'secret');
    const { entries, undecodable } = readDirNames(dir);
    expect(entries.map((e) => e.name)).toEqual(['plain.txt']);
    expect(undecodable).toHaveLength(1);
    expect(fs.readFileSync(joinBytes(dir, undecodable[0].name), 'utf8')).toBe('secret');
  });

  it('shows such a name with \\xNN for every byte outside ASCII, and no control character', () => {
    expect(shownBytes(ff('src/notes-', '.txt'))).toBe('src/notes-\\xff.txt');
    expect(shownBytes(Buffer.concat([ff('a'), Buffer.from('\x1b[2J\n')]))).toBe('a\\xff\\x1b[2J\\x0a');
    expect(shownBytes('as given')).toBe('as given');
  });
});
