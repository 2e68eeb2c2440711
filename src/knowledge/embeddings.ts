// Dense embeddings, only when a provider is configured: the Gemini embedding API (GEMINI_API_KEY)
// or a user command (texts as JSON on stdin, a JSON array of vectors on stdout). Without one the
// store is lexical only: devx never invents a vector that carries no meaning.
import { KnowledgeError } from './types.js';
import type { ProcessRunner } from '../util/processRunner.js';

export interface Embedder {
  readonly dims: number;
  readonly name: string;
  embed(texts: string[], kind: 'document' | 'query'): Promise<number[][]>;
}

export type EmbeddingsSetting = 'none' | 'gemini' | { command: string[]; dims: number };

export class GeminiEmbedder implements Embedder {
  readonly name: string;

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl = 'https://generativelanguage.googleapis.com',
    private readonly model = 'gemini-embedding-001',
    readonly dims = 768,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.name = `gemini:${model}`;
  }

  async embed(texts: string[], kind: 'document' | 'query'): Promise<number[][]> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/v1beta/models/${this.model}:batchEmbedContents`;
    const body = {
      requests: texts.map((t) => ({
        model: `models/${this.model}`,
        content: { parts: [{ text: t.slice(0, 8000) }] },
        taskType: kind === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT',
        outputDimensionality: this.dims,
      })),
    };
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': this.apiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      throw new KnowledgeError(`the Gemini embedding API is unreachable (${(err as Error).message})`);
    }
    if (!res.ok) throw new KnowledgeError(`the Gemini embedding API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    const json = (await res.json()) as { embeddings?: { values: number[] }[] };
    const out = json.embeddings?.map((e) => e.values) ?? [];
    if (out.length !== texts.length || out.some((v) => v.length !== this.dims))
      throw new KnowledgeError(`the Gemini embedding API returned ${out.length} vectors of the wrong shape (wanted ${texts.length} × ${this.dims})`);
    return out;
  }
}

export class CommandEmbedder implements Embedder {
  readonly name: string;

  constructor(
    private readonly command: string[],
    readonly dims: number,
    private readonly runner: ProcessRunner,
    private readonly cwd: string,
  ) {
    this.name = `command:${command[0]}`;
  }

  async embed(texts: string[], kind: 'document' | 'query'): Promise<number[][]> {
    const r = await this.runner(this.command[0], this.command.slice(1), { cwd: this.cwd, input: JSON.stringify({ kind, texts }), timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new KnowledgeError(`the embedding command failed (exit ${r.exitCode}): ${r.stderr.slice(-200)}`);
    let out: unknown;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      throw new KnowledgeError('the embedding command did not print a JSON array of vectors');
    }
    if (!Array.isArray(out) || out.length !== texts.length || out.some((v) => !Array.isArray(v) || v.length !== this.dims)) {
      throw new KnowledgeError(`the embedding command must print ${texts.length} vectors of ${this.dims} numbers`);
    }
    return out as number[][];
  }
}
