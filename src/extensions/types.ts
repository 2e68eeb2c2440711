// What an installed extension or plugin is, once read: its manifest's facts and the parts it brings, each part
// named by the file it comes from, so a loader can say which file a problem is in. Both formats (Gemini CLI
// extensions, Claude Code plugins) are read into this one shape (geminiManifest.ts, claudeManifest.ts).

/** Extension, plugin and marketplace names: a plain identifier, which is also a folder name under ~/.devx. */
export const EXTENSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export type BundleFormat = 'gemini' | 'claude';

export const FORMAT_LABEL: Record<BundleFormat, string> = { gemini: 'Gemini CLI extension', claude: 'Claude Code plugin' };

/** A custom command file and the name it has before clashes are settled (`deploy`, `tools:deploy`). */
export interface BundleCommand {
  name: string;
  file: string;
}

export interface Bundle {
  name: string;
  version?: string;
  description?: string;
  format: BundleFormat;
  /** The bundle's folder (its installed copy, or the source being installed). */
  dir: string;
  /** The file that names it (gemini-extension.json, .claude-plugin/plugin.json, or the marketplace entry's file). */
  manifestFile: string;
  /** MCP servers as written (variables filled), under the name devx gives them, with the file they are in. */
  mcpServers: { name: string; config: Record<string, unknown>; file: string }[];
  /** Each hooks file's `hooks` object (variables filled), in its format's dialect. */
  hooks: { value: unknown; file: string; dialect: BundleFormat }[];
  /** Variables a hook or server of the bundle is given in its environment (Claude Code's CLAUDE_PLUGIN_ROOT). */
  env: Record<string, string>;
  commands: BundleCommand[];
  /** Skill folders (each holds a SKILL.md). */
  skills: string[];
  /** Agent files (Markdown with front-matter). */
  agents: string[];
  /** Context files the model reads with every prompt (Gemini CLI's contextFileName). */
  contextFiles: string[];
  /** Tools the extension asks to keep from the model (Gemini CLI's excludeTools), as written. */
  excludeTools: string[];
  /** Parts that could not be read: `file: key: reason`; the rest of the bundle loads. */
  issues: string[];
}

/** A manifest devx cannot use: the file, the key and why. The bundle does not load (or install). */
export class ManifestError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly reason: string,
  ) {
    super(`${file}: ${key ? `"${key}": ` : ''}${reason}`);
    this.name = 'ManifestError';
  }
}

/** An install, uninstall or change devx will not make (a name taken, none installed by that name, …): why, in one line. */
export class ExtensionRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtensionRefused';
  }
}
