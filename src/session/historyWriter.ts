// Subscribes to loop events and persists the conversation after every message, atomically, so a
// killed process loses at most the message in flight.
import type { AgentEvent } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import { saveHistory } from './history.js';
import { ensureDevxDir } from './projectFiles.js';

export function createHistoryWriter(root: string, file: string, history: Message[]): (e: AgentEvent) => void {
  return (e) => {
    if (e.type !== 'message') return;
    history.push(e.message);
    ensureDevxDir(root);
    saveHistory(file, history);
  };
}
