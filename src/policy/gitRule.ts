// git: read-only subcommands are allowed without options that change config, output files or the
// repository path; changes ask; config, hooks and transport tricks are denied.
import type { Word } from './shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from './types.js';
import { checkPathArgs, hasOpt, type RuleContext, type SimpleCommand } from './commandRules.js';

const READ_SUBCOMMANDS = ['status', 'diff', 'log', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'shortlog', 'describe', 'tag', 'remote', 'grep', 'show-ref', 'cat-file', 'ls-tree', 'reflog', 'stash'];
const CHANGE_SUBCOMMANDS = ['add', 'commit', 'push', 'pull', 'fetch', 'reset', 'checkout', 'switch', 'restore', 'merge', 'rebase', 'cherry-pick', 'revert', 'rm', 'mv', 'clean', 'init', 'clone', 'am', 'apply', 'worktree', 'gc', 'prune', 'notes', 'bisect'];
const DENY_SUBCOMMANDS = ['config', 'hook', 'submodule', 'filter-branch', 'filter-repo', 'daemon', 'send-email', 'credential', 'credential-store', 'credential-cache', 'http-backend', 'upload-pack', 'receive-pack', 'archive', 'bundle', 'fast-import', 'replace', 'instaweb', 'web--browse', 'difftool', 'mergetool', 'update-ref', 'symbolic-ref'];
/** Options that run programs, write files or point git elsewhere. */
const DANGEROUS_OPTS = ['--output', '-o', '--ext-diff', '--textconv', '--upload-pack', '--receive-pack', '--exec', '-u', '--config', '--git-dir', '--work-tree', '--exec-path', '--namespace', '--super-prefix', '--open-files-in-pager', '-O', '--run', '--template'];

export function gitRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args: Word[] = [...c.args];
  // Global options come before the subcommand.
  while (args.length && args[0].text.startsWith('-')) {
    const t = args[0].text;
    if (t === '--version' || t === '--help') return ALLOW('git version or help', 'command:read-only:git');
    if (t === '-c' || t.startsWith('--config-env') || t === '-C' || t.startsWith('--git-dir') || t.startsWith('--work-tree') || t.startsWith('--exec-path') || t.startsWith('--namespace')) {
      return DENY(`git ${t} changes configuration or the repository path; it can run programs`, 'command:git-config');
    }
    args.shift();
  }
  const sub = args.shift()?.text ?? '';
  if (!sub) return ALLOW('git with no subcommand prints help', 'command:read-only:git');
  if (DENY_SUBCOMMANDS.includes(sub)) return DENY(`git ${sub} can change configuration, hooks or send data`, 'command:git-config');
  if (hasOpt(args, DANGEROUS_OPTS.filter((o) => o !== '-u' && o !== '-o' && o !== '-O'))) {
    return DENY(`git ${sub} with options that run programs, write files or move the repository`, 'command:git-dangerous-option');
  }
  if (READ_SUBCOMMANDS.includes(sub)) {
    if (sub === 'branch' && args.some((a) => !/^(-a|--all|-r|--remotes|-v|-vv|--verbose|--list|-l|--show-current|--contains|--merged|--no-merged|--sort=.*|--color.*|--no-color)$/.test(a.text))) {
      return ASK('git branch with these arguments creates, renames or deletes branches', 'command:git-change');
    }
    if (sub === 'tag' && args.some((a) => !/^(-l|--list|-n\d*|--sort=.*|--contains|--points-at)$/.test(a.text) && !a.text.includes('*'))) {
      return ASK('git tag with these arguments creates or deletes tags', 'command:git-change');
    }
    if (sub === 'remote' && args.length && !/^(-v|--verbose|show|get-url)$/.test(args[0].text)) return ASK('git remote changes remotes', 'command:git-change');
    if (sub === 'stash' && args.length && !/^(list|show)$/.test(args[0].text)) return ASK('git stash changes the working tree', 'command:git-change');
    if (sub === 'stash' && !args.length) return ASK('git stash changes the working tree', 'command:git-change');
    if ((sub === 'diff' || sub === 'log' || sub === 'show') && hasOpt(args, ['--output', '--ext-diff', '--textconv'])) {
      return DENY(`git ${sub} --output/--ext-diff/--textconv write files or run programs`, 'command:git-dangerous-option');
    }
    // Revisions (HEAD~1, main..topic) are not paths; explicit paths are after -- or look like paths.
    const dd = args.findIndex((a) => a.text === '--');
    const paths = args.filter((a, i) => (dd >= 0 && i > dd) || /^(\/|\.\.?\/|~)/.test(a.text));
    return strictest(ALLOW(`git ${sub} only reads`, 'command:read-only:git'), checkPathArgs(paths, 'read', ctx));
  }
  if (CHANGE_SUBCOMMANDS.includes(sub)) return ASK(`git ${sub} changes the repository or talks to a remote`, 'command:git-change');
  return ASK(`git ${sub} is not a known read-only git command`, 'command:git-unknown');
}
