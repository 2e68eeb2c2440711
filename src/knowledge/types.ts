// The knowledge store contract, shared by the embedded engine and Qdrant. One contract test suite
// runs against every backend that is available.

export interface KnowledgeMeta {
  /** Who stored it: devx stores as "gemini", Claude Code as "claude". */
  agent: string;
  /** ISO time. */
  timestamp: string;
  project: string;
  /** e.g. note, research, decision, doc. */
  type: string;
  tags: string[];
  /** Where it came from (a file for imports). */
  source?: string;
}

export interface KnowledgeDoc {
  id: string;
  content: string;
  metadata: KnowledgeMeta;
}

export interface KnowledgeHit extends KnowledgeDoc {
  score: number;
}

/** All given fields must match; tags must all be present; since/until bound the timestamp. */
export interface KnowledgeFilter {
  agent?: string;
  project?: string;
  type?: string;
  tags?: string[];
  since?: string;
  until?: string;
}

export interface KnowledgeStore {
  readonly backend: 'embedded' | 'qdrant';
  readonly location: string;
  /** Inserts or replaces (by id) documents; returns their ids. `onProgress` counts documents written. */
  add(docs: { id?: string; content: string; metadata: KnowledgeMeta }[], onProgress?: (done: number) => void): Promise<string[]>;
  search(query: string, opts: { filter?: KnowledgeFilter; limit: number }): Promise<KnowledgeHit[]>;
  list(opts: { filter?: KnowledgeFilter; limit: number; offset?: number }): Promise<KnowledgeDoc[]>;
  get(id: string): Promise<KnowledgeDoc | null>;
  delete(ids: string[]): Promise<number>;
  count(): Promise<number>;
}

export class KnowledgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KnowledgeError';
  }
}

export const MAX_CONTENT_CHARS = 200_000;
