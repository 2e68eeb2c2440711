// Credentials written into URLs are masked before the output of a tool that runs a program (kind 'execute':
// run_command, custom tools, MCP tools that act) reaches the model; runToolCall applies it. `git remote -v`,
// `npm config list`, build logs and error messages print remotes such as
// https://x-access-token:ghp_…@github.com/…, and whatever the model is shown goes to the model's API.
// The policy already keeps .git/config and token files from being read; this covers the programs that print them.

// scheme://[user][:password]@ — both parts stop at the characters that end a URL's authority.
const USERINFO = /\b([a-z][a-z0-9+.-]{1,15}:\/\/)([^\s/?#@:'"<>`]*)(?::([^\s/?#@'"<>`]*))?@/gi;

// A user name that is itself a token (GitHub accepts https://<token>@github.com): long and unbroken,
// or one of the well-known token prefixes.
const TOKEN_USER = /^(?:[A-Za-z0-9_-]{32,}|(?:ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abpr]|npm|pypi)[-_][A-Za-z0-9_-]{8,})$/;

const MASK = '***';

/** Masks URL passwords and token-like URL user names; `count` says how many were masked. */
export function maskUrlCredentials(text: string): { text: string; count: number } {
  let count = 0;
  const masked = text.replace(USERINFO, (all, scheme: string, user: string, password: string | undefined) => {
    if (password) {
      count++;
      return `${scheme}${TOKEN_USER.test(user) ? MASK : user}:${MASK}@`;
    }
    if (TOKEN_USER.test(user)) {
      count++;
      return `${scheme}${MASK}@`;
    }
    return all;
  });
  return { text: masked, count };
}

/** A command's output as the model sees it: URL credentials masked, with a line saying so. */
export function maskCommandOutput(output: string): string {
  const { text, count } = maskUrlCredentials(output);
  return count ? `${text}\n[devx masked ${count} credential(s) written into URLs (shown as ***); they are not needed to work with the remote]` : text;
}
