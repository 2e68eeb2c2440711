// Marketplaces the user added (`devx extensions marketplace add <folder|git URL>`): a local one is read where
// it is, a git one is cloned into ~/.devx/marketplaces/<name>/ (its name is the one marketplace.json gives).
// `plugin@marketplace` then names one of its plugins, fetched from where its entry says.
import fs from 'node:fs';
import path from 'node:path';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { insideBundle } from './bundleParts.js';
import type { PluginFallback } from './claudeManifest.js';
import { cloneRepository, isGitUrl, localFolder, type Fetched } from './fetchSource.js';
import { findMarketplaceFile, locatePlugin, readMarketplace, type MarketplaceFile } from './marketplace.js';
import { marketplacesRoot, readRecord, removeIfEmpty, writeRecord, type Marketplace } from './store.js';
import { ExtensionRefused } from './types.js';

/** Adds the marketplace `source` names; returns its name and what it lists. */
export function addMarketplace(o: { source: string; cwd: string; devxHome: string; ref?: string; env?: NodeJS.ProcessEnv; now?: Date }): {
  name: string;
  market: MarketplaceFile;
} {
  const record = readRecord(o.devxHome);
  if (!isGitUrl(o.source)) {
    const { file, dir } = findMarketplaceFile(localFolder(o.source, o.cwd));
    const market = readMarketplace(file);
    refuseTaken(record.marketplaces, market.name);
    record.marketplaces[market.name] = { source: o.source, file, dir, cloned: false, addedAt: (o.now ?? new Date()).toISOString() };
    writeRecord(o.devxHome, record);
    return { name: market.name, market };
  }
  mkdirOwnedSync(marketplacesRoot(o.devxHome));
  const clone = cloneRepository(o.source, { ref: o.ref, env: o.env, parent: marketplacesRoot(o.devxHome) });
  try {
    const { file } = findMarketplaceFile(clone.dir);
    const market = readMarketplace(file);
    refuseTaken(record.marketplaces, market.name);
    const dir = path.join(marketplacesRoot(o.devxHome), market.name);
    if (fs.existsSync(dir)) throw new ExtensionRefused(`${dir} is already there (not added by devx); move it aside first`);
    fs.renameSync(clone.dir, dir);
    record.marketplaces[market.name] = {
      source: o.source,
      file: path.join(dir, path.relative(clone.dir, file)),
      dir,
      cloned: true,
      addedAt: (o.now ?? new Date()).toISOString(),
    };
    writeRecord(o.devxHome, record);
    return { name: market.name, market };
  } finally {
    clone.cleanup();
    // The clone's parent was made for it: a failed add leaves nothing behind.
    removeIfEmpty(marketplacesRoot(o.devxHome));
  }
}

function refuseTaken(list: Record<string, Marketplace>, name: string): void {
  if (list[name]) throw new ExtensionRefused(`a marketplace named "${name}" is already added (from ${list[name].source}); remove it first`);
}

/** Removes an added marketplace (and devx's clone of it); plugins installed from it stay installed. */
export function removeMarketplace(devxHome: string, name: string): { plugins: string[] } {
  const record = readRecord(devxHome);
  const m = record.marketplaces[name];
  if (!m) throw new ExtensionRefused(`no marketplace named "${name}" is added${listed(record.marketplaces)}`);
  if (m.cloned && path.dirname(m.dir) === marketplacesRoot(devxHome)) fs.rmSync(m.dir, { recursive: true, force: true });
  delete record.marketplaces[name];
  writeRecord(devxHome, record);
  return { plugins: Object.entries(record.extensions).flatMap(([n, e]) => (e.marketplace === name ? [n] : [])) };
}

function listed(list: Record<string, unknown>): string {
  const names = Object.keys(list);
  return names.length ? ` (added: ${names.join(', ')})` : ' (none is added)';
}

/** The plugin `plugin` of the added marketplace `name`: fetched (a folder in it, or a clone), with what its entry says. */
export function findPlugin(m: Marketplace, name: string, plugin: string, env?: NodeJS.ProcessEnv): { fetched: Fetched; dir: string; entry: PluginFallback } {
  const market = readMarketplace(m.file);
  const entry = market.plugins.find((p) => p.name === plugin);
  if (!entry)
    throw new ExtensionRefused(`the marketplace "${name}" has no plugin "${plugin}"; it has: ${market.plugins.map((p) => p.name).join(', ') || '(none)'}`);
  const loc = locatePlugin(market, entry, m.dir, m.file);
  const fallback: PluginFallback = {
    name: entry.name,
    ...(entry.version ? { version: entry.version } : {}),
    ...(entry.description ? { description: entry.description } : {}),
    file: m.file,
  };
  if (loc.kind === 'dir') return { fetched: { dir: loc.dir, cleanup: () => {} }, dir: localFolder(loc.dir, m.dir), entry: fallback };
  const fetched = cloneRepository(loc.url, { ref: loc.ref, sha: loc.sha, env });
  const dir = loc.subdir ? insideBundle(fetched.dir, loc.subdir) : fetched.dir;
  if (!dir || !fs.existsSync(dir)) {
    fetched.cleanup();
    throw new ExtensionRefused(`${loc.url} has no folder ${loc.subdir} (the plugin's source in ${m.file})`);
  }
  return { fetched, dir: fs.realpathSync(dir), entry: fallback };
}
