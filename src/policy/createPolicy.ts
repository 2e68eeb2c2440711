// Builds the effective policy for a project exactly as a run would: settings from every scope,
// project trust, the sandbox probe and the bash parser. Shared by the agent and `devx policy check`.
import path from 'node:path';
import { loadSettings, type ResolvedSettings, type Settings } from '../config/settings.js';
import { devxHome, findProjectRoot } from '../config/paths.js';
import { isTrusted } from '../config/trust.js';
import { PolicyEngine, type ApprovalMode } from './decide.js';
import { loadBashParser } from './bashParser.js';
import { detectBwrap, type SandboxSpec } from '../sandbox/bwrap.js';

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
}): Promise<PolicySetup> {
  const root = findProjectRoot(opts.cwd);
  const home = devxHome(opts.env);
  const userHome = opts.env.HOME ?? path.dirname(home);
  const settings = loadSettings({ devxHome: home, projectRoot: root, env: opts.env, overrides: opts.overrides, trusted: isTrusted(home, root) });
  const mode: ApprovalMode = opts.yes ? 'yolo' : (opts.approvalMode ?? settings.approvalMode);
  const bwrap = detectBwrap(opts.env);
  const sandbox: SandboxSpec | null = bwrap ? { bin: bwrap, root, home: userHome } : null;
  const policy = new PolicyEngine({
    root,
    home: userHome,
    devxHome: home,
    headless: opts.headless,
    sandboxed: Boolean(sandbox),
    parser: await loadBashParser(),
    permissions: { rules: settings.permissionRules, root, home: userHome },
    mode,
    rateLimits: settings.rateLimits,
  });
  return { root, home, userHome, settings, mode, sandbox, policy };
}
