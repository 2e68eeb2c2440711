// Bubblewrap sandbox for commands the policy allowed on its own (test runners, read-only tools), after
// the approach of Anthropic's sandbox-runtime (matched by hand, not imported; same bubblewrap
// primitives): a read-only `/`, the home directory replaced by an empty tmpfs (toolchain folders bound
// back read-only, their credential files masked), a private /tmp, the project writable except
// .git/hooks, .git/config and .devx/, every path the policy denies inside the project masked (files by
// /dev/null, folders by an empty tmpfs), and no network. Commands a person approved run as approved.
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { findExecutable } from '../util/findExecutable.js';

export interface SandboxSpec {
  bin: string;
  root: string;
  home: string;
  /** Paths inside the project the policy denies reading (sensitive files, settings deny rules). */
  hidden?: () => string[];
}

let probed: string | null | undefined;

const PROBE_TTL_MS = 24 * 3600 * 1000;

/**
 * What decides whether bwrap works here: the binary itself and the kernel's user-namespace settings.
 * A cached verdict holds only while all of them are unchanged (and for a day at most).
 */
function probeKey(bin: string): string {
  const read = (f: string) => {
    try {
      return fs.readFileSync(f, 'utf8').trim();
    } catch {
      return '-';
    }
  };
  const st = fs.statSync(bin);
  return [bin, st.size, st.mtimeMs, st.ino, os.release(), process.getuid?.() ?? '-', read('/proc/sys/user/max_user_namespaces'), read('/proc/sys/kernel/unprivileged_userns_clone'), read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns')].join('|');
}

/**
 * Finds a working bwrap (it needs user namespaces, which some containers lack). Probed once per
 * process, and the verdict is cached in the temp directory so a start-up need not spawn the probe again.
 * A stale "works" fails closed: a sandboxed command then errors; it never runs unsandboxed.
 */
export function detectBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  if (probed !== undefined) return probed;
  if (env.DEVX_SANDBOX === 'off') return (probed = null);
  const bin = findExecutable('bwrap', env);
  if (!bin) return (probed = null);
  // Per user, outside any home (tests and sessions with temp homes share it); a wrong entry only fails closed.
  const cacheFile = path.join(os.tmpdir(), `devx-${process.getuid?.() ?? 'u'}`, 'sandbox-probe.json');
  let key = '';
  try {
    key = probeKey(bin);
    const c = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { key: string; works: boolean; at: number };
    if (c.key === key && Date.now() - c.at < PROBE_TTL_MS) return (probed = c.works ? bin : null);
  } catch {
    // no cache yet, or unreadable: probe
  }
  const r = spawnSync(bin, ['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--unshare-net', '--die-with-parent', 'true'], { stdio: 'ignore', timeout: 5000 });
  probed = r.status === 0 ? bin : null;
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
    fs.writeFileSync(cacheFile, JSON.stringify({ key, works: probed !== null, at: Date.now() }));
  } catch {
    // a read-only home: probe again next time
  }
  return probed;
}

/** Folders under $HOME that tool chains run from; bound back read-only over the empty home. */
export const TOOLCHAIN_DIRS = ['.nvm', '.volta', '.fnm', '.bun', '.deno', '.local/bin', '.local/lib', '.local/share/pnpm', '.cargo/bin', '.rustup', 'go/bin', 'go/pkg/mod', '.pyenv', '.rbenv', '.sdkman', '.asdf', '.m2/repository', '.gradle/caches'];

/** The argv prefix that runs `bash -c cmd` inside the sandbox. */
export function sandboxArgs(spec: SandboxSpec, cwd: string): string[] {
  const r = spec.root;
  const home = spec.home;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // The home directory is not mounted: an empty tmpfs (throwaway caches included), tool chains read-only.
  if (home && home !== '/' && !isInsideOrSame(r, home)) {
    args.push('--tmpfs', home);
    for (const d of TOOLCHAIN_DIRS) {
      const p = path.join(home, d);
      if (fs.existsSync(p)) args.push('--ro-bind', p, p);
    }
  }
  args.push('--bind', r, r);
  for (const p of [path.join(r, '.git', 'hooks'), path.join(r, '.git', 'config'), path.join(r, '.devx')]) args.push('--ro-bind-try', p, p);
  // git cannot run without reading .git/config; it stays readable (read-only) while the policy keeps
  // refusing it as a path argument and denies `git config`.
  const gitConfig = path.join(r, '.git', 'config');
  for (const p of spec.hidden?.() ?? []) {
    if (p === gitConfig) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue; // a link is resolved by bwrap: its target outside the project is judged there
    if (st.isDirectory()) args.push('--tmpfs', p, '--remount-ro', p);
    else args.push('--ro-bind', '/dev/null', p);
  }
  args.push('--unshare-net', '--unshare-ipc', '--die-with-parent', '--new-session', '--chdir', cwd, '--');
  return args;
}

/** True when `root` is `dir` or inside it (a home inside the project is not replaced). */
function isInsideOrSame(dir: string, root: string): boolean {
  const rel = path.relative(dir, root);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel) && rel.split(path.sep)[0] !== '..');
}
