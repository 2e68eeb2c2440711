// The environment a model-run command sees: the user's, minus credentials and the variables that would
// make bash run a line otherwise than it was judged. A model that can run `env` must not be able to read
// the API keys devx itself was given.
import path from 'node:path';
import { gitEnvFor, repoConfigRiskSync } from '../util/safeGit.js';
import { gitEntriesOf } from '../sandbox/projectScan.js';
const SECRET_NAME = /(API_KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY)/i;
// Variables that change what bash does with a command line after the policy judged it: where cd goes
// (CDPATH), which files a glob matches (GLOBIGNORE, BASHOPTS=dotglob), startup files and exported
// functions that replace commands (BASH_ENV, ENV, BASH_FUNC_name%%), tracing that expands PS4.
const SHELL_CONTROL = /^(CDPATH|GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ENV|PS4|BASH_XTRACEFD|PROMPT_COMMAND|POSIXLY_CORRECT|FIGNORE|BASH_FUNC_.*)$/;

/** The environment for a command the model runs in `root` (git's program-running configuration switched off there). */
export function commandEnv(env: NodeJS.ProcessEnv, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || SECRET_NAME.test(k) || SHELL_CONTROL.test(k)) continue;
    out[k] = v;
  }
  out.DEVX = '1';
  // Every git the command starts, in the project or a repository nested in it, runs none of the programs
  // their configuration names (util/safeGit.ts): the variables are inherited by git's own children too.
  const repos = new Set([root, ...gitEntriesOf(root).map((e) => path.dirname(e))]);
  return gitEnvFor(
    out,
    [...repos].map((r) => repoConfigRiskSync(r, env)),
  );
}
