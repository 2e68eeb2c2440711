// Conversation records: what the session stores and the prompt builder renders.

export type Role = 'user' | 'assistant' | 'tool' | 'devx';

export interface Message {
  role: Role;
  content: string;
  /** ISO timestamp. */
  at: string;
  /** Images shown with this message: described here, their bytes sent only in the turn they arrive. */
  images?: { path: string; mimeType: string; bytes: number }[];
}
