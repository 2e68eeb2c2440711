// A Claude Code marketplace: .claude-plugin/marketplace.json, `{ name, owner, metadata?, plugins: [{ name,
// source, description, version, … }] }`. A plugin's source is a path inside the marketplace ("./plugins/x", or
// "x" under metadata.pluginRoot) or an object: { source: "github", repo, ref?, sha? }, { source: "url", url,
// ref?, sha? } ("git" is taken for "url"), { source: "git-subdir", url, path, ref?, sha? }. Other kinds (npm,
// pip) are named and refused at install.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { insideBundle, readBundleJson, schemaError } from './bundleParts.js';
import { EXTENSION_NAME, ManifestError } from './types.js';

export const MARKETPLACE_FILE = path.join('.claude-plugin', 'marketplace.json');

const Pin = {
  ref: z.string().min(1).optional(),
  sha: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/i, 'must be a commit id')
    .optional(),
};

// Built on first use, as settings' schemas are.
const MarketplaceFileSchema = z.lazy(() => {
  const name = z
    .string({ error: 'is required (letters, digits, "-" or "_")' })
    .regex(EXTENSION_NAME, 'must be letters, digits, "-" or "_" (at most 64), starting with a letter or digit');
  const source = z.union(
    [
      z.string().min(1),
      z.object({ source: z.literal('github'), repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/repo'), ...Pin }).passthrough(),
      z.object({ source: z.enum(['url', 'git']), url: z.string().min(1), ...Pin }).passthrough(),
      z.object({ source: z.literal('git-subdir'), url: z.string().min(1), path: z.string().min(1), ...Pin }).passthrough(),
      z.object({ source: z.string().refine((v) => !['github', 'url', 'git', 'git-subdir'].includes(v)) }).passthrough(),
    ],
    { error: 'must be a path ("./plugins/x") or an object with "source"' },
  );
  return z
    .object({
      name,
      owner: z.object({ name: z.string().optional() }).passthrough().optional(),
      metadata: z.object({ pluginRoot: z.string().optional(), description: z.string().optional() }).passthrough().optional(),
      plugins: z.array(z.object({ name, source, description: z.string().optional(), version: z.string().optional() }).passthrough(), {
        error: 'must be a list of plugins',
      }),
    })
    .passthrough();
});

export type MarketplaceFile = z.infer<typeof MarketplaceFileSchema>;
export type MarketplaceEntry = MarketplaceFile['plugins'][number];

/** Where a marketplace file is, given a folder that holds .claude-plugin/marketplace.json or the file itself. */
export function findMarketplaceFile(dirOrFile: string): { file: string; dir: string } {
  if (fs.statSync(dirOrFile).isDirectory()) return { file: path.join(dirOrFile, MARKETPLACE_FILE), dir: dirOrFile };
  const up = path.dirname(dirOrFile);
  return { file: dirOrFile, dir: path.basename(up) === '.claude-plugin' ? path.dirname(up) : up };
}

/** The marketplace file, checked; a ManifestError names the file and key. */
export function readMarketplace(file: string): MarketplaceFile {
  const raw = readBundleJson(file);
  if (raw === undefined) throw new ManifestError(file, '', 'not found: a marketplace has .claude-plugin/marketplace.json');
  const parsed = MarketplaceFileSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(file, parsed.error);
  return parsed.data;
}

export type PluginLocation = { kind: 'dir'; dir: string } | { kind: 'git'; url: string; ref?: string; sha?: string; subdir?: string };

/** Where the entry's plugin is: a folder inside the marketplace, or a git repository (and a folder in it). */
export function locatePlugin(m: MarketplaceFile, entry: MarketplaceEntry, dir: string, file: string): PluginLocation {
  const i = m.plugins.indexOf(entry);
  const key = `plugins.${i}.source`;
  const s = entry.source;
  if (typeof s === 'string') {
    const rel = /^\.{1,2}\//.test(s) ? s : path.join(m.metadata?.pluginRoot ?? '.', s);
    const p = insideBundle(dir, rel);
    if (!p) throw new ManifestError(file, key, `${s} leads outside the marketplace`);
    return { kind: 'dir', dir: p };
  }
  const pin = { ...(typeof s.ref === 'string' ? { ref: s.ref } : {}), ...(typeof s.sha === 'string' ? { sha: s.sha } : {}) };
  if (s.source === 'github') return { kind: 'git', url: `https://github.com/${String(s.repo)}.git`, ...pin };
  if (s.source === 'url' || s.source === 'git') return { kind: 'git', url: String(s.url), ...pin };
  if (s.source === 'git-subdir') {
    const sub = String(s.path);
    if (path.isAbsolute(sub) || sub.split(/[\\/]/).includes('..')) throw new ManifestError(file, `${key}.path`, 'must be a path inside the repository');
    return { kind: 'git', url: String(s.url), subdir: sub, ...pin };
  }
  throw new ManifestError(file, `${key}.source`, `"${s.source}" plugins are not something devx installs (it takes a path, github, url or git-subdir)`);
}
