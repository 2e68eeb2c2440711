// What the person typed at the REPL's prompt, kept per project across sessions (as Claude Code and Gemini CLI
// keep theirs): the Up key reaches the last session's messages. It lives in devx's home, not in the project (a
// checkout's files are the repository's), in a folder only the user can read: a message can hold anything.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { devxHome } from '../util/devxHome.js';
import { writeStateSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { readTextOrNull } from '../util/readRegularFileSync.js';

/** The most entries kept (newest first, as readline holds them). */
export const HISTORY_SIZE = 500;
/** An entry longer than this (a paste) is not kept. */
const MAX_ENTRY = 4000;

/** The file of a project's input history. */
export function inputHistoryFile(env: NodeJS.ProcessEnv, root: string): string {
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // a project folder that went away keeps the name it was given
  }
  const key = crypto.createHash('sha256').update(real).digest('hex').slice(0, 24);
  return path.join(devxHome(env), 'input-history', `${key}.json`);
}

/** The entries kept in `file`, newest first; none when it is missing or not a list of strings. */
export function loadInputHistory(file: string): string[] {
  const text = readTextOrNull(file, 4 * 1024 * 1024);
  if (text === null) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string').slice(0, HISTORY_SIZE) : [];
  } catch {
    return [];
  }
}

/** Keeps `entries` (newest first) in `file`; a failure to write loses only the history, never the session. */
export function saveInputHistory(file: string, entries: readonly string[]): void {
  try {
    mkdirOwnedSync(path.dirname(file), 0o700);
    writeStateSync(file, JSON.stringify(entries.filter((e) => e.length <= MAX_ENTRY).slice(0, HISTORY_SIZE)));
  } catch {
    // a full disk or a read-only home: the Up key still works in this session
  }
}
