// Bubblewrap sandbox for commands the policy allowed on its own (test runners, read-only tools), after
// the approach of Anthropic's sandbox-runtime (matched by hand, not imported; same bubblewrap
// primitives): a read-only `/`, the home directory replaced by an empty tmpfs (toolchain folders bound
// back read-only, their credential files masked), a private /tmp, the project writable except
// .git/hooks, .git/config and .devx/, every path the policy denies inside the project masked (files by
// /dev/null, folders by an empty tmpfs), and no network. Commands a person approved run as approved.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface SandboxSpec {
  bin: string;
  root: string;
  home: string;
  /** Paths inside the project the policy denies reading (sensitive files, settings deny rules). */
  hidden?: () => string[];
}

let probed: string | null | undefined;

/** Finds a working bwrap (it needs user namespaces, which some containers lack). Probed once. */
export function detectBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  if (probed !== undefined) return probed;
  if (env.DEVX_SANDBOX === 'off') return (probed = null);
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--unshare-net', '--die-with-parent', 'true'], { stdio: 'ignore', timeout: 5000 });
  probed = r.status === 0 ? 'bwrap' : null;
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
