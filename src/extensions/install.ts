// Installing: a source (a folder, a git URL, or plugin@marketplace) is fetched, read and checked whole
// before anything is written (planInstall: the bundle, what it brings, its tree), so the person sees every
// program it will run before they agree; commitInstall then copies it beside the others and records it.
// Uninstalling removes the copy and its line of the record, and nothing else is left.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { isAlive } from '../util/processAlive.js';
import { copyTree, scanTree, type TreeEntry } from './copyTree.js';
import { cloneRepository, isGitUrl, localFolder, type Fetched } from './fetchSource.js';
import { findPlugin } from './marketplaces.js';
import { chooseFormat, readBundle } from './readBundle.js';
import type { PluginFallback } from './claudeManifest.js';
import { extensionDir, extensionsRoot, readRecord, writeRecord } from './store.js';
import { EXTENSION_NAME, ExtensionRefused, type Bundle, type BundleFormat } from './types.js';

export interface InstallPlan {
  /** The bundle as it will be once installed (its variables name its copy). */
  bundle: Bundle;
  /** What the user named. */
  source: string;
  /** Where it was read from (a folder, a clone). */
  from: string;
  /** Where its copy goes. */
  into: string;
  marketplace?: string;
  entry?: PluginFallback;
  tree: TreeEntry[];
  /** Removes what fetching made (a clone). */
  cleanup(): void;
}

const PLUGIN_AT = /^([A-Za-z0-9][A-Za-z0-9_-]*)@([A-Za-z0-9][A-Za-z0-9_-]*)$/;

/** Fetches, reads and checks what `source` names; nothing is written under devx's home. */
export function planInstall(o: { source: string; cwd: string; devxHome: string; format?: BundleFormat; ref?: string; env?: NodeJS.ProcessEnv }): InstallPlan {
  const record = readRecord(o.devxHome);
  const at = PLUGIN_AT.exec(o.source);
  let fetched: Fetched;
  let dir: string;
  let format: BundleFormat;
  let entry: PluginFallback | undefined;
  const isPath = fs.existsSync(path.resolve(o.cwd, o.source));
  if (at && !isPath && !record.marketplaces[at[2]]) {
    const added = Object.keys(record.marketplaces);
    throw new ExtensionRefused(
      `no marketplace named "${at[2]}" is added (${added.length ? `added: ${added.join(', ')}` : 'none is'}); add it with devx extensions marketplace add <folder|git URL>`,
    );
  }
  if (at && !isPath) {
    const found = findPlugin(record.marketplaces[at[2]], at[2], at[1], o.env);
    ({ fetched, dir, entry } = found);
    format = 'claude';
  } else {
    fetched = isGitUrl(o.source) ? cloneRepository(o.source, { ref: o.ref, env: o.env }) : { dir: localFolder(o.source, o.cwd), cleanup: () => {} };
    dir = fetched.dir;
    format = chooseFormat(dir, o.format);
  }
  try {
    const first = readBundle(dir, format, '${workspacePath}', { fallback: entry });
    if (!EXTENSION_NAME.test(first.name)) throw new ExtensionRefused(`"${first.name}" is not a name devx installs (letters, digits, "-" or "_")`);
    if (record.extensions[first.name])
      throw new ExtensionRefused(`an extension named "${first.name}" is already installed; uninstall it first (devx extensions uninstall ${first.name})`);
    const installedAt = extensionDir(o.devxHome, first.name);
    if (fs.existsSync(installedAt)) throw new ExtensionRefused(`${installedAt} is already there (not installed by devx); move it aside first`);
    const bundle = readBundle(dir, format, '${workspacePath}', { fallback: entry, installedAt });
    const tree = scanTree(dir);
    // A folder is recorded by its whole path: `list` names it wherever it is run from.
    const source = !(at && !isPath) && !isGitUrl(o.source) ? dir : o.source;
    return { bundle, source, from: dir, into: installedAt, ...(at && entry ? { marketplace: at[2], entry } : {}), tree, cleanup: fetched.cleanup };
  } catch (err) {
    fetched.cleanup();
    throw err;
  }
}

/** Copies the planned bundle into ~/.devx/extensions/<name>/ and records it, enabled. */
export function commitInstall(plan: InstallPlan, devxHome: string, now = new Date()): string {
  const name = plan.bundle.name;
  const dest = plan.into;
  const tmp = path.join(extensionsRoot(devxHome), `${INSTALLING}${process.pid}-${name}-${crypto.randomBytes(4).toString('hex')}`);
  let moved = false;
  try {
    const record = readRecord(devxHome);
    if (record.extensions[name]) throw new ExtensionRefused(`an extension named "${name}" is already installed`);
    mkdirOwnedSync(extensionsRoot(devxHome));
    sweepAbandonedCopies(extensionsRoot(devxHome));
    copyTree(plan.from, plan.tree, tmp);
    fs.renameSync(tmp, dest);
    moved = true;
    record.extensions[name] = {
      format: plan.bundle.format,
      ...(plan.bundle.version ? { version: plan.bundle.version } : {}),
      source: plan.source,
      ...(plan.marketplace ? { marketplace: plan.marketplace } : {}),
      ...(plan.entry && plan.bundle.manifestFile === plan.entry.file ? { entry: plan.entry } : {}),
      installedAt: now.toISOString(),
      enabled: true,
    };
    writeRecord(devxHome, record);
    return dest;
  } catch (err) {
    fs.rmSync(moved ? dest : tmp, { recursive: true, force: true });
    throw err;
  } finally {
    plan.cleanup();
  }
}

const INSTALLING = '.installing-';

/** Removes the half-made copies of installs whose process is gone (a kill -9 mid-copy); a live one's stays. */
export function sweepAbandonedCopies(root: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(/^\.installing-(\d+)-/.exec(n)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(root, n), { recursive: true, force: true });
  }
}

/** Removes an installed extension: its copy and its record. */
export function uninstallExtension(devxHome: string, name: string): void {
  const record = readRecord(devxHome);
  if (!record.extensions[name]) throw new ExtensionRefused(`no extension named "${name}" is installed${installedNames(record.extensions)}`);
  if (EXTENSION_NAME.test(name)) fs.rmSync(extensionDir(devxHome, name), { recursive: true, force: true });
  delete record.extensions[name];
  writeRecord(devxHome, record);
}

/** Turns an installed extension on or off; its files stay. Returns whether it changed. */
export function setExtensionEnabled(devxHome: string, name: string, enabled: boolean): boolean {
  const record = readRecord(devxHome);
  const inst = record.extensions[name];
  if (!inst) throw new ExtensionRefused(`no extension named "${name}" is installed${installedNames(record.extensions)}`);
  if (inst.enabled === enabled) return false;
  inst.enabled = enabled;
  writeRecord(devxHome, record);
  return true;
}

function installedNames(list: Record<string, unknown>): string {
  const names = Object.keys(list);
  return names.length ? ` (installed: ${names.join(', ')})` : ' (none is installed)';
}
