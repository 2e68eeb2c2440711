// The project's conversation, saved under .devx/ after every turn (atomically) and reloaded by the
// next session. A corrupt file is set aside with a warning, never silently dropped.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { dropOrphanedToolResults, type Message } from '../core/messages.js';
import { writeStateSync } from '../util/atomicWrite.js';
import { foreignState, ownerId } from './ownerId.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { readStateText, UnreadableFileError } from '../util/readRegularFileSync.js';

const HistorySchema = z.object({
  version: z.literal(1),
  /** Who wrote it (session/ownerId.ts); absent in files older than that. */
  owner: z.string().optional(),
  messages: z.array(
    z.object({ role: z.enum(['user', 'assistant', 'tool', 'devx']), content: z.string(), at: z.string(), summaryOf: z.number().int().positive().optional() }),
  ),
});

export interface LoadedHistory {
  messages: Message[];
  warning?: string;
}

export function historyFile(projectRoot: string): string {
  return path.join(projectRoot, '.devx', 'history.json');
}

/** Where a conversation that is not the user's is moved when a session needs the file (kept, never read). */
export function setAsideName(file: string, now: Date): string {
  return file.replace(/\.json$/, '') + `.set-aside-${now.toISOString().replace(/[:.]/g, '-')}.json`;
}

/**
 * The project's conversation when it is this user's. Someone else's (or one without this user's owner id)
 * starts a new one: `setAside` (a session, which will write the file) moves it beside, kept and unread, and
 * the start's set-aside line names it (session/setAside.ts); otherwise it is left where it is.
 */
export function loadHistory(file: string, now: () => Date = () => new Date(), opts: { setAside?: boolean } = {}): LoadedHistory {
  let h: z.infer<typeof HistorySchema>;
  try {
    // Never blocks on what a project holds under the name (a FIFO): that is unreadable too.
    h = HistorySchema.parse(JSON.parse(readStateText(file)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [] };
    const stamp = now().toISOString().replace(/[:.]/g, '-');
    const aside = file.replace(/\.json$/, '') + `.corrupt-${stamp}.json`;
    fs.renameSync(file, aside);
    const why = err instanceof SyntaxError ? 'invalid JSON' : err instanceof UnreadableFileError ? err.why : 'unexpected structure';
    return { messages: [], warning: `history file was unreadable (${why}); it was moved to ${aside} and a new conversation started` };
  }
  const foreign = foreignState(file, h.owner);
  if (!foreign) return { messages: dropOrphanedToolResults(h.messages) };
  if (!opts.setAside) return { messages: [], warning: `${file} holds a conversation devx did not have with you (${foreign}); it is not used` };
  fs.renameSync(file, setAsideName(file, now()));
  return { messages: [] };
}

/** The stored conversation keeps at most this many characters (prompts use far less; sessions keep full transcripts). */
export const HISTORY_MAX_CHARS = 2_000_000;

/** The newest messages whose content fits in `maxChars` (always at least the last one). */
export function trimHistory(messages: Message[], maxChars = HISTORY_MAX_CHARS): Message[] {
  let total = 0;
  let start = messages.length;
  while (start > 0 && (start === messages.length || total + messages[start - 1].content.length <= maxChars)) {
    total += messages[start - 1].content.length;
    start--;
  }
  // A tool result whose call fell outside the cap goes too: history never starts with an orphan.
  while (start > 0 && start < messages.length - 1 && messages[start].role === 'tool') start++;
  return start === 0 ? messages : messages.slice(start);
}

export function saveHistory(file: string, messages: Message[], maxChars = HISTORY_MAX_CHARS): void {
  mkdirOwnedSync(path.dirname(file));
  // Trim in place so the live session and the file agree; older turns stay in .devx/sessions/*.transcript.json.
  const kept = trimHistory(messages, maxChars);
  if (kept !== messages) messages.splice(0, messages.length - kept.length);
  const owner = ownerId();
  writeStateSync(file, JSON.stringify({ version: 1, ...(owner ? { owner } : {}), messages }, null, 1) + '\n');
}
