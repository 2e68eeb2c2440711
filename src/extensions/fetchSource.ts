// Where a bundle to install comes from: a folder on this machine (read where it is, then copied), or a git
// repository, cloned with devx's own git environment (util/safeGit.ts: the repository's configuration names
// no program git runs) into a temporary folder that is removed once the copy is made.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runGitSync } from '../util/safeGit.js';
import { ExtensionRefused } from './types.js';

/** A source devx could not fetch (a clone that failed): the reason, in one line. */
export class SourceError extends Error {}

/** git's URL forms: scheme://… and the scp-like user@host:path. */
export function isGitUrl(source: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source);
}

export interface Fetched {
  /** The bundle's folder (a real path). */
  dir: string;
  /** Removes what fetching made (a clone); nothing for a local folder. */
  cleanup(): void;
}

/** A local folder, as a real path; an ExtensionRefused when it is not one. */
export function localFolder(source: string, cwd: string): string {
  const abs = path.resolve(cwd, source.startsWith('~/') ? path.join(os.homedir(), source.slice(2)) : source);
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    throw new ExtensionRefused(`${source} is neither a folder nor a git URL`);
  }
  if (!fs.statSync(real).isDirectory()) throw new ExtensionRefused(`${source} is not a folder`);
  return real;
}

/** Clones `url` (at `ref`, a branch or tag, or `sha`, a commit) into a new temporary folder (under `parent`, else the system's). */
export function cloneRepository(url: string, opts: { ref?: string; sha?: string; env?: NodeJS.ProcessEnv; parent?: string } = {}): Fetched {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(opts.parent ?? os.tmpdir(), opts.parent ? '.cloning-' : 'devx-extension-')));
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });
  const dir = path.join(tmp, 'repo');
  try {
    if (opts.ref?.startsWith('-') || opts.sha?.startsWith('-')) throw new ExtensionRefused(`"${opts.ref ?? opts.sha}" is not a git ref`);
    const depth = opts.sha ? [] : ['--depth', '1'];
    const r = runGitSync(tmp, ['clone', '--quiet', '--no-recurse-submodules', ...depth, ...(opts.ref ? ['--branch', opts.ref] : []), '--', url, dir], {
      env: opts.env,
      timeout: 300_000,
    });
    if (r.status !== 0) throw new SourceError(`git could not clone ${url}: ${lastLine(r.stderr)}`);
    if (opts.sha) {
      const c = runGitSync(dir, ['checkout', '--quiet', '--detach', opts.sha], { env: opts.env, timeout: 60_000 });
      if (c.status !== 0) throw new SourceError(`git could not check out ${opts.sha} of ${url}: ${lastLine(c.stderr)}`);
    }
    return { dir, cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

function lastLine(stderr: unknown): string {
  const text = typeof stderr === 'string' ? stderr : Buffer.isBuffer(stderr) ? stderr.toString('utf8') : '';
  return text.trim().split('\n').filter(Boolean).pop() ?? 'it failed';
}
