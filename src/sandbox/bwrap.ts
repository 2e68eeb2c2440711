// Bubblewrap sandbox for commands the policy allowed on its own (test runners, read-only tools):
// read-only /, the project writable except .git/hooks, .git/config and .devx/, a private /tmp,
// and no network. Commands a person approved run as approved, outside it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface SandboxSpec {
  bin: string;
  root: string;
  home: string;
}

let probed: string | null | undefined;

/** Finds a working bwrap (it needs user namespaces, which some containers lack). Probed once. */
export function detectBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  if (probed !== undefined) return probed;
  if (env.DEVX_SANDBOX === 'off') return (probed = null);
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-net', '--die-with-parent', 'true'], { stdio: 'ignore', timeout: 5000 });
  probed = r.status === 0 ? 'bwrap' : null;
  return probed;
}

/** The argv prefix that runs `bash -c cmd` inside the sandbox. */
export function sandboxArgs(spec: SandboxSpec, cwd: string): string[] {
  const r = spec.root;
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--bind', r, r,
    '--ro-bind-try', path.join(r, '.git', 'hooks'), path.join(r, '.git', 'hooks'),
    '--ro-bind-try', path.join(r, '.git', 'config'), path.join(r, '.git', 'config'),
    '--ro-bind-try', path.join(r, '.devx'), path.join(r, '.devx'),
    // Package managers write caches and logs under HOME; give them throwaway space.
    '--tmpfs', path.join(spec.home, '.npm'),
    '--tmpfs', path.join(spec.home, '.cache'),
    '--unshare-net',
    '--unshare-ipc',
    '--die-with-parent',
    '--new-session',
    '--chdir', cwd,
    '--',
  ];
}
