// `devx extensions …`: Gemini CLI extensions and Claude Code plugins, installed into ~/.devx/extensions/
// (extensions/). Installing names everything the bundle will run and asks first (y/N on a terminal;
// --consent elsewhere); list, enable, disable, uninstall; marketplaces (Claude Code's marketplace.json) to
// install plugin@marketplace from.
import { createRequire } from 'node:module';
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { findProjectRoot } from '../../config/paths.js';
import { devxHome } from '../../util/devxHome.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';
import { BundleRefused } from '../../extensions/copyTree.js';
import { SourceError } from '../../extensions/fetchSource.js';
import { commitInstall, planInstall, setExtensionEnabled, uninstallExtension } from '../../extensions/install.js';
import { addMarketplace, removeMarketplace } from '../../extensions/marketplaces.js';
import { readMarketplace } from '../../extensions/marketplace.js';
import { readRecord, RecordError } from '../../extensions/store.js';
import { ExtensionRefused, ManifestError, type BundleFormat } from '../../extensions/types.js';
import { installedJson, listInstalled, renderInstallPlan, renderInstalled } from '../renderExtensions.js';

const USAGE = [
  'extensions list [--json]',
  'extensions install <folder|git URL|plugin@marketplace> [--consent] [--ref <ref>] [--format gemini|claude]',
  'extensions uninstall <name>',
  'extensions enable <name>',
  'extensions disable <name>',
  'extensions marketplace add <folder|git URL> [--ref <ref>]',
  'extensions marketplace list',
  'extensions marketplace remove <name>',
];

export const extensionsCommand = defineCommand({
  name: 'extensions',
  summary: 'Gemini CLI extensions and Claude Code plugins: install (from a folder, git or a marketplace), list, enable, disable, uninstall',
  usage: USAGE,
  flags: flagTable(`
        --consent          install without asking: you have read what it runs (needed without a terminal)
    -y, --yes              the same as --consent
        --ref <ref>        the git branch or tag to install (a git URL)
        --format <format>  read the folder as gemini (gemini-extension.json) or claude (.claude-plugin/plugin.json)
        --json             machine-readable list
`),
  subcommands: subcommandTable(
    [
      'list | extensions list [--json] | the installed extensions: version, format, enabled, source and what each brings',
      'install | extensions install <folder|git URL|plugin@marketplace> [--consent] | show what it runs, ask, then copy it into ~/.devx/extensions',
      'uninstall | extensions uninstall <name> | remove an extension: its copy and its record',
      'enable | extensions enable <name> | load a disabled extension again',
      'disable | extensions disable <name> | stop loading an extension; its files stay',
      'marketplace | extensions marketplace add|list|remove … | Claude Code plugin marketplaces (.claude-plugin/marketplace.json)',
    ].join('\n'),
  ),
  async run({ values, positionals }) {
    const [verb, ...rest] = positionals;
    const home = devxHome(process.env);
    try {
      if (verb === 'list' && !rest.length) return list(home, Boolean(values.json));
      if (verb === 'install' && rest.length === 1) return await install(home, rest[0]!, values);
      if ((verb === 'uninstall' || verb === 'enable' || verb === 'disable') && rest.length === 1) return change(home, verb, rest[0]!);
      if (verb === 'marketplace') return marketplace(home, rest, values);
    } catch (err) {
      if (err instanceof SourceError) {
        process.stderr.write(`devx: ${escapeControls(err.message)}; nothing was installed\n`);
        return EXIT.failed;
      }
      if (err instanceof ManifestError || err instanceof BundleRefused || err instanceof ExtensionRefused || err instanceof RecordError)
        throw new UsageError(`${err.message}${verb === 'install' ? '; nothing was installed' : ''}`);
      throw err;
    }
    throw new UsageError(`usage:\n${USAGE.map((u) => `  devx ${u}`).join('\n')}`);
  },
});

function list(home: string, json: boolean): number {
  const items = listInstalled(readRecord(home), home, findProjectRoot(process.cwd()));
  process.stdout.write(json ? `${printableJson(installedJson(items), 2)}\n` : renderInstalled(items, process.env.HOME));
  return items.some((i) => i.error) ? EXIT.failed : EXIT.ok;
}

async function install(home: string, source: string, values: Record<string, string | boolean | undefined>): Promise<number> {
  const format = values.format as string | undefined;
  if (format !== undefined && format !== 'gemini' && format !== 'claude') throw new UsageError(`--format takes gemini or claude; got "${format}"`);
  const plan = planInstall({
    source,
    cwd: process.cwd(),
    devxHome: home,
    format: format as BundleFormat | undefined,
    ref: values.ref as string | undefined,
    env: process.env,
  });
  process.stdout.write(renderInstallPlan(plan, process.env.HOME));
  if (!values.consent && !values.yes && !(await confirm(`Install ${plan.bundle.name}? [y/N] `))) {
    plan.cleanup();
    const why = process.stdin.isTTY ? 'not installed' : 'not installed: no terminal to ask on; pass --consent (or --yes) to install it';
    process.stderr.write(`devx: ${why}\n`);
    return process.stdin.isTTY ? EXIT.failed : EXIT.usage;
  }
  const dir = commitInstall(plan, home);
  process.stdout.write(escapeControls(`installed ${plan.bundle.name} in ${dir}; it loads from the next session on\n`));
  return EXIT.ok;
}

/** y/N on the terminal; false without one. */
async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createRequire(import.meta.url)('readline-sync') as typeof import('readline-sync');
  return /^y(es)?$/i.test(rl.question(question).trim());
}

function change(home: string, verb: 'uninstall' | 'enable' | 'disable', name: string): number {
  if (verb === 'uninstall') {
    uninstallExtension(home, name);
    process.stdout.write(escapeControls(`uninstalled ${name}: its copy and its record are removed\n`));
    return EXIT.ok;
  }
  const changed = setExtensionEnabled(home, name, verb === 'enable');
  process.stdout.write(escapeControls(`${name} ${changed ? 'is now' : 'was already'} ${verb}d\n`));
  return EXIT.ok;
}

function marketplace(home: string, args: string[], values: Record<string, string | boolean | undefined>): number {
  const [verb, arg, ...extra] = args;
  if (extra.length) throw new UsageError('usage: devx extensions marketplace add <folder|git URL> | list | remove <name>');
  if (verb === 'add' && arg) {
    const { name, market } = addMarketplace({ source: arg, cwd: process.cwd(), devxHome: home, ref: values.ref as string | undefined, env: process.env });
    const plugins = market.plugins.map((p) => `  ${p.name}${p.version ? ` ${p.version}` : ''}${p.description ? `  ${p.description}` : ''}`);
    process.stdout.write(
      escapeControls(
        `added the marketplace ${name} (from ${arg}); its plugins:\n${plugins.join('\n') || '  (none)'}\ninstall one with: devx extensions install <plugin>@${name}\n`,
      ),
    );
    return EXIT.ok;
  }
  if (verb === 'remove' && arg) {
    const { plugins } = removeMarketplace(home, arg);
    process.stdout.write(
      escapeControls(`removed the marketplace ${arg}${plugins.length ? `; the plugins installed from it stay installed: ${plugins.join(', ')}` : ''}\n`),
    );
    return EXIT.ok;
  }
  if (verb === 'list' && !arg) {
    const markets = Object.entries(readRecord(home).marketplaces);
    if (!markets.length) process.stdout.write('no marketplaces added (devx extensions marketplace add <folder|git URL>)\n');
    for (const [name, m] of markets) {
      let plugins: string;
      try {
        plugins = readMarketplace(m.file)
          .plugins.map((p) => p.name)
          .join(', ');
      } catch (err) {
        plugins = `(does not read: ${(err as Error).message})`;
      }
      process.stdout.write(escapeControls(`${name}  from ${m.source}  plugins: ${plugins || '(none)'}\n`));
    }
    return EXIT.ok;
  }
  throw new UsageError('usage: devx extensions marketplace add <folder|git URL> | list | remove <name>');
}
