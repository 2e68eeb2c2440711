// The project's conversation, saved under .devx/ after every turn (atomically) and reloaded by the
// next session. A corrupt file is set aside with a warning, never silently dropped.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { dropOrphanedToolResults, type Message } from '../core/messages.js';
import { writeStateSync } from '../util/atomicWrite.js';
import { ownerId, trackedByGit } from './ownerId.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';

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

export function loadHistory(file: string, now: () => Date = () => new Date()): LoadedHistory {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [] };
    throw err;
  }
  try {
    const h = HistorySchema.parse(JSON.parse(text));
    const me = ownerId();
    // Someone else's conversation (committed to the repository, or copied from another machine) is not resumed.
    if (me && (h.owner ? h.owner !== me : trackedByGit(file))) {
      return {
        messages: [],
        warning: `${file} holds a conversation devx did not have with you (${h.owner ? 'written by another user' : 'it came with the repository'}); starting a new one (the file is replaced when this session saves)`,
      };
    }
    return { messages: dropOrphanedToolResults(h.messages) };
  } catch (err) {
    const stamp = now().toISOString().replace(/[:.]/g, '-');
    const aside = file.replace(/\.json$/, '') + `.corrupt-${stamp}.json`;
    fs.renameSync(file, aside);
    const why = err instanceof SyntaxError ? 'invalid JSON' : 'unexpected structure';
    return { messages: [], warning: `history file was unreadable (${why}); it was moved to ${aside} and a new conversation started` };
  }
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
