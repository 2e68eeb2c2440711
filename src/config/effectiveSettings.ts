// The settings a run in `cwd` uses: every scope merged, with the project's trust applied.
import path from 'node:path';
import { loadSettings, type ResolvedSettings, type Settings } from './settings.js';
import { devxHome, findProjectRoot } from './paths.js';
import { isTrusted } from './trust.js';

export interface EffectiveSettings {
  root: string;
  /** devx's own home (~/.devx). */
  home: string;
  /** The user's home directory. */
  userHome: string;
  settings: ResolvedSettings;
}

export function loadEffectiveSettings(opts: { cwd: string; env: NodeJS.ProcessEnv; overrides?: Partial<Settings> }): EffectiveSettings {
  const root = findProjectRoot(opts.cwd);
  const home = devxHome(opts.env);
  const userHome = opts.env.HOME ?? path.dirname(home);
  const settings = loadSettings({ devxHome: home, projectRoot: root, env: opts.env, overrides: opts.overrides, trusted: isTrusted(home, root) });
  return { root, home, userHome, settings };
}
