// Warnings about a file (a command file that did not load, one whose name devx's own command takes) are
// said once, not at every start: what was said is kept in ~/.devx/told.json by the file's size and time
// and the words said, so a change to the file, or a new warning, is said again.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { readTextOrNull, READ_LIMITS } from '../util/readRegularFileSync.js';
import { writeStateSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';

export interface FileWarning {
  text: string;
  file: string;
}

/** Entries kept: the oldest go first. */
const KEEP = 500;

function keyOf(w: FileWarning): string {
  const st = fs.statSync(w.file, { throwIfNoEntry: false });
  return crypto
    .createHash('sha256')
    .update(`${w.file}\0${st?.size ?? -1}\0${st?.mtimeMs ?? -1}\0${w.text}`)
    .digest('hex')
    .slice(0, 32);
}

function readTold(file: string): Record<string, string> {
  try {
    const data = JSON.parse(readTextOrNull(file, READ_LIMITS.state) ?? '{}') as unknown;
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The warnings not said before for the file as it is now; they are recorded as said. */
export function notToldBefore(devxHome: string, warnings: FileWarning[], now = new Date()): string[] {
  if (!warnings.length) return [];
  const file = path.join(devxHome, 'told.json');
  const told = readTold(file);
  const fresh = warnings.filter((w) => !told[keyOf(w)]);
  if (!fresh.length) return [];
  for (const w of fresh) told[keyOf(w)] = now.toISOString();
  const kept = Object.entries(told)
    .sort((a, b) => String(b[1]).localeCompare(String(a[1])))
    .slice(0, KEEP);
  try {
    mkdirOwnedSync(devxHome, 0o700);
    writeStateSync(file, JSON.stringify(Object.fromEntries(kept)));
  } catch {
    // Not remembered (a read-only or full home): said again next time, which is no harm.
  }
  return fresh.map((w) => w.text);
}
