// The environment a model-run command sees: the user's, minus credentials and the variables that would
// make bash run a line otherwise than it was judged. A model that can run `env` must not be able to read
// the API keys devx itself was given.
import { withGitConfig } from '../util/gitConfigEnv.js';
const SECRET_NAME = /(API_KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY)/i;
// Variables that change what bash does with a command line after the policy judged it: where cd goes
// (CDPATH), which files a glob matches (GLOBIGNORE, BASHOPTS=dotglob), startup files and exported
// functions that replace commands (BASH_ENV, ENV, BASH_FUNC_name%%), tracing that expands PS4.
const SHELL_CONTROL = /^(CDPATH|GLOBIGNORE|BASHOPTS|SHELLOPTS|BASH_ENV|ENV|PS4|BASH_XTRACEFD|PROMPT_COMMAND|POSIXLY_CORRECT|FIGNORE|BASH_FUNC_.*)$/;

export function commandEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || SECRET_NAME.test(k) || SHELL_CONTROL.test(k)) continue;
    out[k] = v;
  }
  out.DEVX = '1';
  // A folder holding HEAD, objects and refs is a bare repository to git, whose config (a pager, an
  // external diff, a gpg program) it obeys. The model can write such a folder under any name, so git
  // may use a bare repository only when told to (--git-dir and GIT_DIR are refused by the policy).
  // Entries given this way rank above every config file.
  Object.assign(out, withGitConfig(out, [['safe.bareRepository', 'explicit']]));
  // Nobody is at a terminal to answer: git neither opens an editor (a commit without -m keeps its
  // message or aborts, rebase -i runs its list as it stands) nor prompts for a password, where it would
  // otherwise wait until the command's timeout.
  out.GIT_EDITOR = 'true';
  out.GIT_SEQUENCE_EDITOR = 'true';
  out.GIT_TERMINAL_PROMPT = '0';
  // git status and friends do not take the index lock to refresh it opportunistically: a read stays a read.
  out.GIT_OPTIONAL_LOCKS = '0';
  return out;
}
