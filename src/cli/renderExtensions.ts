// `devx extensions` output: what an extension brings before it is installed, and the installed ones.
import path from 'node:path';
import { bundleTitle, describeParts, hookLines, serverLine } from '../extensions/describeBundle.js';
import { readBundle } from '../extensions/readBundle.js';
import { extensionDir, type ExtensionRecord } from '../extensions/store.js';
import { FORMAT_LABEL, type Bundle } from '../extensions/types.js';
import type { InstallPlan } from '../extensions/install.js';
import { escapeControls } from '../util/terminalText.js';

const tilde = (p: string, home: string | undefined) => (home && p.startsWith(`${home}${path.sep}`) ? `~${p.slice(home.length)}` : p);

/** What the person agrees to: the extension, where it comes from and goes, and everything it brings. */
export function renderInstallPlan(plan: InstallPlan, home: string | undefined): string {
  const b = plan.bundle;
  return escapeControls(
    [
      `Installing ${bundleTitle(b)}`,
      `  from ${plan.source}${plan.from !== plan.source ? ` (${plan.from})` : ''}`,
      `  into ${tilde(plan.into, home)}`,
      ...(b.description ? [`  ${b.description}`] : []),
      ...describeParts(b),
      'It loads in every project, trusted or not; its servers, hooks and commands meet your policy as your own do (an extension cannot mark its servers trusted).',
      '',
    ].join('\n'),
  );
}

/** One installed extension, read for listing; a broken one is listed with why it does not load. */
export interface Listed {
  name: string;
  version?: string;
  format: string;
  enabled: boolean;
  source: string;
  marketplace?: string;
  dir: string;
  bundle?: Bundle;
  error?: string;
}

export function listInstalled(record: ExtensionRecord, devxHome: string, workspace: string): Listed[] {
  return Object.entries(record.extensions).map(([name, inst]) => {
    const dir = extensionDir(devxHome, name);
    const base = { name, format: inst.format, enabled: inst.enabled, source: inst.source, ...(inst.marketplace ? { marketplace: inst.marketplace } : {}), dir };
    try {
      const bundle = readBundle(dir, inst.format, workspace, { fallback: inst.entry });
      return { ...base, version: bundle.version ?? inst.version, bundle };
    } catch (err) {
      return { ...base, ...(inst.version ? { version: inst.version } : {}), error: (err as Error).message };
    }
  });
}

export function renderInstalled(list: Listed[], home: string | undefined): string {
  if (!list.length) return 'no extensions installed (devx extensions install <folder|git URL|plugin@marketplace>)\n';
  const lines = list.flatMap((l) => [
    `${l.name}${l.version ? ` ${l.version}` : ''}  ${FORMAT_LABEL[l.format as 'gemini']}  ${l.enabled ? 'enabled' : 'disabled'}  from ${l.source}  (${tilde(l.dir, home)})`,
    ...(l.bundle ? describeParts(l.bundle) : [`  does not load: ${l.error}`]),
  ]);
  return escapeControls(`${lines.join('\n')}\n`);
}

/** The same, as JSON: each extension and what it brings, by kind. */
export function installedJson(list: Listed[]): unknown {
  return list.map(({ bundle: b, ...l }) => ({
    ...l,
    ...(b
      ? {
          brings: {
            mcpServers: b.mcpServers.map((s) => ({ name: s.name, runs: serverLine(s.config) })),
            hooks: b.hooks.flatMap((h) => hookLines(h.value)),
            commands: b.commands.map((c) => `/${c.name}`),
            skills: b.skills.map((d) => path.basename(d)),
            agents: b.agents.map((f) => path.basename(f, '.md')),
            contextFiles: b.contextFiles.map((f) => path.relative(b.dir, f)),
            excludeTools: b.excludeTools,
          },
          issues: b.issues,
        }
      : {}),
  }));
}
