// What both manifest readers need: a bundle's JSON files read as devx reads its own definitions (a regular
// file, bounded), paths the manifest names kept inside the bundle, and the files of its parts' folders.
import fs from 'node:fs';
import path from 'node:path';
import type * as z from 'zod';
import { READ_LIMITS, readOwnFileSync } from '../util/readRegularFileSync.js';
import { ManifestError, type BundleCommand } from './types.js';
import { filesUnder } from '../util/filesUnder.js';

/** A JSON file of the bundle, or undefined when it is not there; a file that does not parse is a ManifestError naming it. */
export function readBundleJson(file: string): unknown {
  let text: string;
  try {
    text = readOwnFileSync(file, { maxBytes: READ_LIMITS.definition, links: 'any' }).toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ManifestError(file, '', (err as Error).message.replace(`${file} `, ''));
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ManifestError(file, '', `not valid JSON (${(err as Error).message})`);
  }
}

/** The first problem zod found, as a ManifestError naming the key. */
export function schemaError(file: string, error: z.ZodError): ManifestError {
  const issue = error.issues[0];
  const keys = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
  return new ManifestError(file, keys.join('.'), issue.message);
}

/** `rel` (a path a manifest names) inside the bundle `dir`, or null when it leads out of it. */
export function insideBundle(dir: string, rel: string): string | null {
  const abs = path.resolve(dir, rel);
  const within = (p: string, base: string) => p === base || p.startsWith(`${base}${path.sep}`);
  if (!within(abs, dir)) return null;
  try {
    return within(fs.realpathSync(abs), fs.realpathSync(dir)) ? abs : null;
  } catch {
    return abs; // not there: the caller finds it missing
  }
}

const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** The commands of a commands folder: `deploy.toml` is `deploy`, `gcs/sync.toml` is `gcs:sync`, after `prefix:` when given. */
export function commandsIn(dir: string, exts: string[], prefix: string | undefined, issues: string[]): BundleCommand[] {
  const out: BundleCommand[] = [];
  for (const file of filesUnder(dir, exts)) {
    const parts = path
      .relative(dir, file)
      .replace(/\.(toml|md)$/, '')
      .split(path.sep);
    if (!parts.every((p) => NAME_PART.test(p))) {
      issues.push(`${file}: its name (the path under the commands folder) may hold only letters, digits, ".", "-" and "_"; skipped`);
      continue;
    }
    out.push({ name: [...(prefix ? [prefix] : []), ...parts].join(':'), file });
  }
  return out;
}

/** The skill folders in `dir`: `dir` itself when it holds a SKILL.md, else each sub-folder that does. */
export function skillFoldersIn(dir: string): string[] {
  if (fs.existsSync(path.join(dir, 'SKILL.md'))) return [dir];
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter((d) => fs.existsSync(path.join(d, 'SKILL.md')));
}

/** A manifest value that names one path or several, as a list. */
export function pathList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
