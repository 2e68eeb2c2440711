// Builds the effective policy for a project exactly as a run would: settings from every scope,
// project trust, the sandbox probe and the bash parser. Shared by the agent and `devx policy check`.
import fs from 'node:fs';
import path from 'node:path';
import type { ResolvedSettings, Settings } from '../config/settings.js';
import { loadEffectiveSettings } from '../config/effectiveSettings.js';
import { PolicyEngine, type ApprovalMode } from '../policy/decide.js';
import { loadCommandJudge } from '../policy/loadCommandJudge.js';
import { detectBwrap, sweepPlaceholders, type SandboxSpec } from '../sandbox/bwrap.js';
import { outsideGitDirs } from '../policy/gitDataOutside.js';
import { guardTree } from '../util/guardedPath.js';

export interface PolicySetup {
  root: string;
  home: string;
  userHome: string;
  settings: ResolvedSettings;
  mode: ApprovalMode;
  sandbox: SandboxSpec | null;
  policy: PolicyEngine;
}

export async function createPolicy(opts: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  yes?: boolean;
  approvalMode?: ApprovalMode;
  headless: boolean;
  /** Load the bash parser now (`devx policy check`); an agent loads it on its first command. */
  eagerParser?: boolean;
}): Promise<PolicySetup> {
  const { root, home, userHome, settings } = loadEffectiveSettings(opts);
  const mode: ApprovalMode = opts.yes ? 'yolo' : (opts.approvalMode ?? settings.approvalMode);
  const bwrap = detectBwrap(opts.env);
  const sandbox: SandboxSpec | null = bwrap ? { bin: bwrap, root, home: userHome } : null;
  const policy = new PolicyEngine({
    root,
    home: userHome,
    devxHome: home,
    headless: opts.headless,
    sandboxed: Boolean(sandbox),
    trusted: settings.trusted,
    commands: opts.eagerParser ? await loadCommandJudge() : null,
    permissions: { rules: settings.permissionRules, root, home: userHome },
    additionalDirs: settings.additionalDirectories.map((d) => {
      try {
        return fs.realpathSync(d);
      } catch {
        return d;
      }
    }),
    mode,
    rateLimits: settings.rateLimits,
  });
  if (sandbox) {
    // Sandboxed commands may change the project while devx works in it (a background build): devx's own
    // opens there go folder by folder without following links (util/guardedPath.ts).
    guardTree(root);
    sandbox.journalDir = path.join(home, 'sandbox');
    sandbox.cacheDir = path.join(home, 'sandbox-caches');
    sweepPlaceholders(sandbox.journalDir);
    sandbox.hidden = () => policy.hiddenPaths();
    // A project that is a git worktree of the user's: its git data in the main repository, read-only, so git works in the sandbox.
    sandbox.readable = [...(policy.opts.additionalDirs ?? []), ...outsideGitDirs(root, settings.trusted)];
  }
  return { root, home, userHome, settings, mode, sandbox, policy };
}
