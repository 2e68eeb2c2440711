// The project's conversation, saved under .devx/ after every turn (atomically) and reloaded by the
// next session. A corrupt file is set aside with a warning, never silently dropped.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Message } from '../agent/messages.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';

const HistorySchema = z.object({
  version: z.literal(1),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'tool', 'devx']), content: z.string(), at: z.string() })),
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
    return { messages: HistorySchema.parse(JSON.parse(text)).messages };
  } catch (err) {
    const stamp = now().toISOString().replace(/[:.]/g, '-');
    const aside = file.replace(/\.json$/, '') + `.corrupt-${stamp}.json`;
    fs.renameSync(file, aside);
    const why = err instanceof SyntaxError ? 'invalid JSON' : 'unexpected structure';
    return { messages: [], warning: `history file was unreadable (${why}); it was moved to ${aside} and a new conversation started` };
  }
}

export function saveHistory(file: string, messages: Message[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, JSON.stringify({ version: 1, messages }, null, 1) + '\n');
}
