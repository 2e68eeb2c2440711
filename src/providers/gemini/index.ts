// The Gemini CLI provider: one warm `gemini --acp` process for a session, a job or a one-shot run (warm,
// and auto, devx's choice), or one headless `gemini` process per model call (spawn). A one-shot run's warm
// process may have been started ahead by its entry point (util/prestart), as a per-call one is. `gemini -p`
// takes text only, so in spawn mode a call that carries images goes through ACP (whose prompts hold image
// content); the two share one account ring, so rotation goes on where it was.
import type { BackendEvent, ModelBackend, ModelRequest, ModelResponse, Provider } from '../types.js';
import { cliBinaries, cliOptions } from '../cliBackend.js';
import { AccountRing } from '../accounts.js';
import { GeminiCliBackend, INSTALL_HINT } from './geminiCli.js';
import type { WarmGeminiOptions } from './warmGemini.js';

export const geminiProvider: Provider = {
  id: 'gemini',
  defaultModel: 'gemini-2.5-pro',
  models: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite'],
  defaultBin: 'gemini',
  installHint: INSTALL_HINT,
  binaries: cliBinaries,
  create: (s, ctx) => {
    const base = cliOptions(s, ctx);
    const opts = { ...base, ring: new AccountRing(base.accounts) };
    const warm = () => new LazyWarm({ ...opts, observer: ctx.observer });
    if (s.mode !== 'spawn') return warm();
    return new SpawnOrAcp(new GeminiCliBackend(opts), warm);
  },
};

/** Spawns per call; a call with images goes through ACP. */
class SpawnOrAcp implements ModelBackend {
  private acp: ModelBackend | null = null;

  constructor(
    private readonly spawn: ModelBackend,
    private readonly startAcp: () => ModelBackend,
  ) {}

  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    if (!req.images?.length) return this.spawn.complete(req, onEvent);
    this.acp ??= this.startAcp();
    return this.acp.complete(req, onEvent);
  }

  dispose(): void {
    this.acp?.dispose?.();
    this.spawn.dispose?.();
  }
}

/** The warm backend, loaded on its first call: the ACP SDK stays out of every start-up that never needs it. */
class LazyWarm implements ModelBackend {
  private inner: Promise<ModelBackend> | null = null;
  private loaded: ModelBackend | null = null;

  constructor(private readonly opts: WarmGeminiOptions) {}

  async complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    this.inner ??= import('./warmGemini.js').then((m) => (this.loaded = new m.WarmGeminiBackend(this.opts)));
    return (await this.inner).complete(req, onEvent);
  }

  dispose(): void {
    this.loaded?.dispose?.();
  }
}
