// Configuration other programs run commands from, at a project's top: editors' tasks and language servers,
// other agents' hooks and MCP servers, git hook managers, dev containers, direnv and mise, package managers
// that run a file of the project in place of themselves. A write there runs later, outside devx and outside
// any sandbox: the policy asks a person for it (no approval mode approves it), a build's sandbox holds what
// exists read-only, and what a build creates there is moved to quarantine. One table for the three.

export interface OtherToolConfig {
  /** The name at the project's top: a file, or a folder (everything under it). */
  name: string;
  /** Who runs what, in the words the person reads. */
  runs: string;
  /** In a folder, only files whose name (just under it) matches are the policy's to ask for; the sandbox holds it all. */
  files?: RegExp;
}

export const OTHER_TOOLS_CONFIG: readonly OtherToolConfig[] = [
  { name: '.vscode', runs: 'VS Code runs the tasks, settings, launch and MCP servers in .vscode/', files: /^(tasks|settings|launch|mcp)\.json$/i },
  { name: '.idea', runs: 'JetBrains IDEs run the configurations in .idea/' },
  { name: '.zed', runs: 'Zed runs the tasks and language servers in .zed/' },
  { name: '.claude', runs: 'Claude Code runs the hooks, commands and settings in .claude/' },
  { name: '.gemini', runs: 'Gemini CLI runs the hooks, commands and settings in .gemini/' },
  { name: '.codex', runs: 'Codex runs the MCP servers and notify command in .codex/' },
  { name: '.cursor', runs: 'Cursor runs the MCP servers and hooks in .cursor/' },
  { name: '.continue', runs: 'Continue runs the MCP servers in .continue/' },
  { name: '.opencode', runs: 'opencode loads the plugins and commands in .opencode/' },
  { name: 'opencode.json', runs: 'opencode starts the MCP servers in opencode.json' },
  { name: 'opencode.jsonc', runs: 'opencode starts the MCP servers in opencode.jsonc' },
  { name: '.mcp.json', runs: '.mcp.json starts MCP servers in Claude Code' },
  { name: '.aider.conf.yml', runs: 'aider runs the lint and test commands in .aider.conf.yml' },
  { name: '.husky', runs: 'git runs the hooks in .husky/ (husky)' },
  { name: '.pre-commit-config.yaml', runs: 'pre-commit runs the hooks in .pre-commit-config.yaml at your next commit' },
  ...['lefthook.yml', '.lefthook.yml', 'lefthook.yaml', '.lefthook.yaml', 'lefthook-local.yml', '.lefthook-local.yml', '.lefthook'].map((name) => ({
    name,
    runs: `lefthook runs the hooks in ${name} at your next commit`,
  })),
  { name: '.devcontainer', runs: 'dev containers run initializeCommand from .devcontainer/ on your machine' },
  { name: '.devcontainer.json', runs: 'dev containers run initializeCommand from .devcontainer.json on your machine' },
  { name: '.envrc', runs: 'direnv runs .envrc when you enter the folder' },
  ...['mise.toml', '.mise.toml', 'mise.local.toml', '.mise.local.toml', '.mise'].map((name) => ({ name, runs: `mise runs the hooks and tasks in ${name}` })),
  { name: '.yarnrc.yml', runs: 'yarn runs the file yarnPath names in .yarnrc.yml in place of itself' },
  { name: '.yarnrc', runs: 'yarn runs the file yarn-path names in .yarnrc in place of itself' },
  { name: '.pnpmfile.cjs', runs: 'pnpm runs .pnpmfile.cjs at every install' },
];

/** Who runs `rel` (a project-relative path split in segments), or null when it is no other program's configuration. */
export function otherToolRunning(rel: string[]): string | null {
  const [top, second] = rel;
  const entry = OTHER_TOOLS_CONFIG.find((e) => e.name === top);
  if (!entry) return null;
  if (entry.files && (rel.length !== 2 || !entry.files.test(second ?? ''))) return null;
  return entry.runs;
}
