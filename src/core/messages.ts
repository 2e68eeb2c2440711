// Conversation records: what the session stores and the prompt builder renders.

export type Role = 'user' | 'assistant' | 'tool' | 'devx';

export interface Message {
  role: Role;
  content: string;
  /** ISO timestamp. */
  at: string;
}
