// Where installed extensions live: a copy of each in ~/.devx/extensions/<name>/, and one record,
// ~/.devx/extensions.json, of what is installed (format, version, source, enabled) and of the marketplaces
// added (a local one by its path; a cloned one in ~/.devx/marketplaces/<name>/). A folder without a record
// is not loaded. When the last extension and marketplace go, the record and the folders go with them.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { READ_LIMITS, readTextIfPresentSync } from '../util/readRegularFileSync.js';

const InstalledSchema = z.object({
  format: z.enum(['gemini', 'claude']),
  version: z.string().optional(),
  /** What the user named: a folder, a git URL, or plugin@marketplace. */
  source: z.string(),
  marketplace: z.string().optional(),
  /** A marketplace plugin without plugin.json: what its entry says of it. */
  entry: z.object({ name: z.string(), version: z.string().optional(), description: z.string().optional(), file: z.string() }).optional(),
  installedAt: z.string(),
  enabled: z.boolean(),
});

const MarketplaceSchema = z.object({
  /** What the user named: a folder or a git URL. */
  source: z.string(),
  /** The marketplace file, and the folder its relative plugin sources start from (the user's own, or devx's clone). */
  file: z.string(),
  dir: z.string(),
  /** devx cloned it (and removes the clone with it). */
  cloned: z.boolean(),
  addedAt: z.string(),
});

// Built on first use, as settings' schemas are.
const RecordSchema = z.lazy(() =>
  z.object({ extensions: z.record(z.string(), InstalledSchema).default({}), marketplaces: z.record(z.string(), MarketplaceSchema).default({}) }),
);

export type Installed = z.infer<typeof InstalledSchema>;
export type Marketplace = z.infer<typeof MarketplaceSchema>;
export type ExtensionRecord = z.infer<typeof RecordSchema>;

export const extensionsRoot = (devxHome: string) => path.join(devxHome, 'extensions');
export const extensionDir = (devxHome: string, name: string) => path.join(extensionsRoot(devxHome), name);
export const marketplacesRoot = (devxHome: string) => path.join(devxHome, 'marketplaces');
export const recordFile = (devxHome: string) => path.join(devxHome, 'extensions.json');

/** The record devx cannot read: its file and why. Loading skips every extension; changing the record waits for the person. */
export class RecordError extends Error {}

/** The record (empty when there is none); a RecordError when the file is there and is not one. */
export function readRecord(devxHome: string): ExtensionRecord {
  const file = recordFile(devxHome);
  let text: string | undefined;
  try {
    text = readTextIfPresentSync(file, READ_LIMITS.definition, 'any');
  } catch (err) {
    throw new RecordError(`${file}: ${(err as Error).message}`);
  }
  if (text === undefined) return { extensions: {}, marketplaces: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new RecordError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = RecordSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new RecordError(`${file}: "${i.path.join('.')}": ${i.message}`);
  }
  return parsed.data;
}

/** Writes the record; an empty one is removed, with the folders it leaves empty. */
export function writeRecord(devxHome: string, record: ExtensionRecord): void {
  const file = recordFile(devxHome);
  if (!Object.keys(record.extensions).length && !Object.keys(record.marketplaces).length) {
    fs.rmSync(file, { force: true });
    for (const dir of [extensionsRoot(devxHome), marketplacesRoot(devxHome)]) removeIfEmpty(dir);
    return;
  }
  mkdirOwnedSync(devxHome);
  writeFileAtomicSync(file, `${JSON.stringify(record, null, 2)}\n`);
}

/** Removes a folder devx made when nothing is left in it. */
export function removeIfEmpty(dir: string): void {
  try {
    if (!fs.readdirSync(dir).length) fs.rmdirSync(dir);
  } catch {
    // not there, or not empty
  }
}
