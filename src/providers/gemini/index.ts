// The Gemini CLI provider: one headless `gemini` process per model call (spawn), one warm `gemini --acp`
// process per session (warm), or, for a one-shot run (auto), a headless process for the first call, which
// starts fastest and may be all the run needs, and a warm one for the tool rounds after it. The two share
// one account ring, so rotation goes on where it was. `gemini -p` takes text only, so a call that carries
// images goes through ACP (whose prompts hold image content) in every mode.
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
    if (s.mode === 'warm') return warm();
    return new SpawnOrAcp(new GeminiCliBackend(opts), warm, s.mode === 'auto');
  },
};

/** Spawns per call; a call with images goes through ACP; with `warmAfterFirst`, so does every call after the first. */
class SpawnOrAcp implements ModelBackend {
  private acp: ModelBackend | null = null;
  private calls = 0;

  constructor(
    private readonly spawn: ModelBackend,
    private readonly startAcp: () => ModelBackend,
    private readonly warmAfterFirst = false,
  ) {}

  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    const first = this.calls++ === 0;
    if (!req.images?.length && (first || !this.warmAfterFirst)) return this.spawn.complete(req, onEvent);
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
