// Pure-JS search used when ripgrep is not installed. It follows ripgrep's defaults closely enough to
// give the same output on ordinary trees: hidden files skipped, root .gitignore honoured, binary
// files skipped, results sorted by path.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './types.js';
import { looksBinary } from './fileText.js';
import { READ_LIMITS, readOwnFileSync } from '../util/readRegularFileSync.js';

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

export async function searchWithJs(root: string, abs: string, pattern: string, glob: string | undefined, cap: number): Promise<Match[]> {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    throw new ToolError(`invalid regular expression: ${(err as Error).message}`);
  }
  const st = await fs.stat(abs).catch(() => null);
  if (!st) throw new ToolError(`path not found: ${path.relative(root, abs) || '.'}`);
  let files: string[];
  if (st.isFile()) files = [abs];
  else {
    const ignore = ['**/.git/**', ...(await gitignorePatterns(root))];
    const rels = await (
      await import('fast-glob')
    ).default(glob ? [`**/${glob.replace(/^\*\*\//, '')}`] : ['**/*'], {
      cwd: abs,
      dot: false,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore,
      suppressErrors: true,
    });
    files = rels.map((r) => path.join(abs, r));
  }
  files = files
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
        if (matches.length >= cap) return matches;
      }
    }
  }
  return matches;
}
