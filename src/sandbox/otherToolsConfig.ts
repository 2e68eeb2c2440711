// Configuration other programs run commands from, in a project: editors' tasks and language servers, other
// agents' hooks and MCP servers, git hook managers and what they run, dev containers, direnv and mise, package
// managers and toolchains that run a file of the project in place of themselves. A write there runs later,
// outside devx and outside any sandbox: the policy asks a person for it (no approval mode approves it), a
// build's sandbox holds what exists at the top read-only, and what a build creates there is moved to quarantine.
// One table for the three. Names are compared without case (a case-insensitive disk opens `.VSCode` as `.vscode`).
import fs from 'node:fs';
import path from 'node:path';

export interface OtherToolConfig {
  /** Where it is from the project's top: a file or folder (`.zed`, `.config/mise`), or a pattern for a file name at the top. */
  at: string | RegExp;
  /** Who runs what, in the words the person reads. */
  runs: string;
  /** In a folder, only the files just under it whose name matches are the policy's to ask for; the sandbox holds it all. */
  files?: RegExp;
  /** Also in any folder below the top: editors and agents opened on a package of a monorepo read it there. */
  nested?: boolean;
}

const hooksAtCommit = (what: string) => `${what} at your next commit`;

export const OTHER_TOOLS_CONFIG: readonly OtherToolConfig[] = [
  // Editors.
  { at: '.vscode', runs: 'VS Code runs the tasks, settings, launch and MCP servers in .vscode/', files: /^(tasks|settings|launch|mcp)\.json$/i, nested: true },
  { at: /\.code-workspace$/i, runs: 'VS Code runs the tasks and settings in a .code-workspace file' },
  { at: '.idea', runs: 'JetBrains IDEs run the configurations in .idea/', nested: true },
  { at: '.zed', runs: 'Zed runs the tasks and language servers in .zed/', nested: true },
  { at: '.helix', runs: 'Helix starts the language servers in .helix/' },
  { at: /^(\.nvim\.lua|\.nvimrc|\.exrc)$/i, runs: 'Neovim and Vim run a project’s .nvim.lua, .nvimrc or .exrc' },
  // Other agents.
  { at: '.claude', runs: 'Claude Code runs the hooks, commands and settings in .claude/', nested: true },
  { at: '.gemini', runs: 'Gemini CLI runs the hooks, commands and settings in .gemini/', nested: true },
  { at: '.codex', runs: 'Codex runs the MCP servers and notify command in .codex/', nested: true },
  { at: '.cursor', runs: 'Cursor runs the MCP servers and hooks in .cursor/', nested: true },
  { at: '.continue', runs: 'Continue runs the MCP servers in .continue/' },
  { at: '.opencode', runs: 'opencode loads the plugins and commands in .opencode/' },
  { at: /^opencode\.jsonc?$/i, runs: 'opencode starts the MCP servers in opencode.json' },
  { at: '.mcp.json', runs: '.mcp.json starts MCP servers in Claude Code', nested: true },
  { at: '.aider.conf.yml', runs: 'aider runs the lint and test commands in .aider.conf.yml' },
  // Git hooks and what they run.
  { at: '.husky', runs: 'git runs the hooks in .husky/ (husky)' },
  { at: '.pre-commit-config.yaml', runs: hooksAtCommit('pre-commit runs the hooks in .pre-commit-config.yaml') },
  { at: /^\.?lefthook(-local)?\.(ya?ml|toml|json)$/i, runs: hooksAtCommit('lefthook runs the hooks in its configuration') },
  { at: '.lefthook', runs: hooksAtCommit('lefthook runs the scripts in .lefthook/') },
  ...['.config/lefthook.yml', '.config/lefthook.yaml', '.config/lefthook.toml', '.config/lefthook.json'].map((at) => ({
    at,
    runs: hooksAtCommit(`lefthook runs the hooks in ${at}`),
  })),
  { at: /^(\.lintstagedrc(\..+)?|lint-staged\.config\.[cm]?[jt]s)$/i, runs: hooksAtCommit('lint-staged runs the commands in its configuration') },
  { at: /^\.?simple-git-hooks\.(json|[cm]?js)$/i, runs: 'simple-git-hooks installs the git hooks in its configuration' },
  // Dev containers, per-folder environments.
  { at: '.devcontainer', runs: 'dev containers run initializeCommand from .devcontainer/ on your machine' },
  { at: '.devcontainer.json', runs: 'dev containers run initializeCommand from .devcontainer.json on your machine' },
  { at: '.envrc', runs: 'direnv runs .envrc when you enter the folder' },
  { at: /^\.?(mise|rtx)(\.[\w-]+)?(\.local)?\.toml$/i, runs: 'mise runs the hooks and tasks in its configuration' },
  ...['.mise', 'mise/config.toml', '.config/mise', '.config/mise.toml'].map((at) => ({ at, runs: `mise runs the hooks and tasks in ${at}` })),
  // Package managers and toolchains that run a project file on every call.
  { at: '.yarnrc.yml', runs: 'yarn runs the file yarnPath names in .yarnrc.yml in place of itself' },
  { at: '.yarnrc', runs: 'yarn runs the file yarn-path names in .yarnrc in place of itself' },
  { at: '.pnpmfile.cjs', runs: 'pnpm runs .pnpmfile.cjs at every install' },
  { at: 'bunfig.toml', runs: 'bun runs the preload scripts bunfig.toml names' },
  { at: '.cargo', runs: 'cargo runs the wrappers, runners and aliases in .cargo/ on every call' },
  { at: /^rust-toolchain(\.toml)?$/i, runs: 'rustup runs the toolchain rust-toolchain names' },
];

const lower = (s: string) => s.toLowerCase();
const segmentsOf = (at: string) => lower(at).split('/');

/** Whether `rel` (a project-relative path in segments) is `e`'s, with `e` taken from segment `from`. */
function matchesAt(e: OtherToolConfig, rel: string[], from: number): boolean {
  if (e.at instanceof RegExp) return rel.length === from + 1 && e.at.test(rel[from]);
  const at = segmentsOf(e.at);
  if (at.some((s, i) => lower(rel[from + i] ?? '') !== s)) return false;
  return !e.files || (rel.length === from + at.length + 1 && e.files.test(rel[from + at.length]));
}

/** Who runs `rel` (a project-relative path split in segments), or null when it is no other program's configuration. */
export function otherToolRunning(rel: string[]): string | null {
  for (const e of OTHER_TOOLS_CONFIG) {
    if (matchesAt(e, rel, 0)) return e.runs;
    if (e.nested) for (let i = 1; i < rel.length; i++) if (matchesAt(e, rel, i)) return `${e.runs} (in ${rel.slice(0, i).join('/')}/)`;
  }
  return null;
}

/** Names that count in any folder (`.vscode`, `.claude`, `.mcp.json`): a build that makes one in a package is caught too. */
export const NESTED_CONFIG_NAMES: ReadonlySet<string> = new Set(
  OTHER_TOOLS_CONFIG.flatMap((e) => (e.nested && typeof e.at === 'string' ? [e.at.toLowerCase()] : [])),
);

/** The fixed paths of the table (`.vscode`, `.config/mise.toml`), from the top: the ones a build must not create or change. */
export const FIXED_CONFIG_PATHS: readonly string[] = OTHER_TOOLS_CONFIG.flatMap((e) => (typeof e.at === 'string' ? [e.at] : []));

/** The files at the project's top that a pattern of the table names (`mise.dev.toml`, `x.code-workspace`), as they are now. */
export function patternConfigAt(root: string): string[] {
  const patterns = OTHER_TOOLS_CONFIG.flatMap((e) => (e.at instanceof RegExp ? [e.at] : []));
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((n) => patterns.some((p) => p.test(n))).map((n) => path.join(root, n));
}
