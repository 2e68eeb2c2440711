import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { OwnedPathError } from './ownedFile.js';

// The folder the user named (DEVX_HOME) or their home is resolved to its real path once: the user's own
// layout (a home under /data, macOS's /var) is theirs to choose. Below it, no link is followed.
function realOrGiven(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    // Not there yet: resolve its folder, so a later mkdir lands where the real path says.
    const up = dirname(p);
    return up === p ? p : join(realOrGiven(up), basename(p));
  }
}

/** devx's own home: $DEVX_HOME, else ~/.devx. (In util so that providers, below config, can find it too.) */
export function devxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEVX_HOME ? realOrGiven(resolvePath(env.DEVX_HOME)) : join(realOrGiven(env.HOME ?? homedir()), '.devx');
}

function statHome(dir: string) {
  try {
    return lstatSync(dir);
  } catch {
    return null;
  }
}

/** Whether start-up work (launch plans, the code cache) may write under `home`: a folder, not a link. */
export function devxHomeUsable(home: string): boolean {
  const st = statHome(home);
  return !st || (!st.isSymbolicLink() && st.isDirectory());
}

/**
 * devx keeps other projects' notes, its owner id and its sandbox journal in ~/.devx: a `~/.devx` that is a
 * link (a dotfiles checkout, or something a tool planted) or not a folder stops devx at start, as a
 * project's `.devx` does. DEVX_HOME naming the real folder is the way to keep it elsewhere.
 */
export function checkDevxHome(env: NodeJS.ProcessEnv = process.env): void {
  const dir = devxHome(env);
  const st = statHome(dir);
  if (!st) return; // made on first write
  if (st.isSymbolicLink()) {
    throw new OwnedPathError(
      `${dir} is a symbolic link (to ${readlinkSync(dir)}); devx keeps its own state there and will not follow it. Set DEVX_HOME to the real folder, or remove the link`,
      dir,
    );
  }
  if (!st.isDirectory()) throw new OwnedPathError(`${dir} is not a folder; devx keeps its own state there. Move it aside and start again`, dir);
}
