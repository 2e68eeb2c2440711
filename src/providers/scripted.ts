// A backend that replies from a list: for unit tests of the loop, and for --dry-run style tooling.
import { BackendError, type ModelBackend, type ModelRequest, type ModelResponse } from './types.js';

export type ScriptedReply = string | BackendError | ((req: ModelRequest) => string | Promise<string>);

export class ScriptedBackend implements ModelBackend {
  readonly requests: ModelRequest[] = [];
  private next = 0;

  constructor(
    private readonly replies: ScriptedReply[],
    private readonly model = 'scripted',
  ) {}

  async complete(req: ModelRequest): Promise<ModelResponse> {
    this.requests.push(req);
    if (req.signal?.aborted) throw new BackendError('cancelled', 'cancelled');
    const reply = this.replies[this.next++];
    if (reply === undefined) throw new BackendError('failed', `scripted backend ran out of replies (call ${this.next})`);
    if (reply instanceof BackendError) throw reply;
    const text = typeof reply === 'function' ? await reply(req) : reply;
    return { text, model: req.model ?? this.model, durationMs: 0, attempts: 1, usage: { input: req.prompt.length, output: text.length } };
  }
}
