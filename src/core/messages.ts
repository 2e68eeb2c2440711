// Conversation records: what the session stores and the prompt builder renders.

export type Role = 'user' | 'assistant' | 'tool' | 'devx';

export interface Message {
  role: Role;
  content: string;
  /** ISO timestamp. */
  at: string;
  /** Images shown with this message: described here, their bytes sent only in the turn they arrive. */
  images?: { path: string; mimeType: string; bytes: number }[];
  /** Set on the note that replaced earlier messages when devx compacted them: how many it stands for. */
  summaryOf?: number;
}

/**
 * Tool results at the start of a conversation answer calls that are no longer in it (the oldest
 * messages were trimmed or compacted): dropped, so history never starts with an orphaned result.
 */
export function dropOrphanedToolResults<T extends Pick<Message, 'role'>>(messages: T[]): T[] {
  let i = 0;
  while (i < messages.length && messages[i].role === 'tool') i++;
  return i === 0 ? messages : messages.slice(i);
}
