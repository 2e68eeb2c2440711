import { homedir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';

/** devx's own home: $DEVX_HOME, else ~/.devx. (In util so that providers, below config, can find it too.) */
export function devxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEVX_HOME ? resolvePath(env.DEVX_HOME) : join(env.HOME ?? homedir(), '.devx');
}
