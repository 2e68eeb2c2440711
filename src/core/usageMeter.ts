// What a run's model calls cost, as the model CLI reported it: tokens in (and how many of them came from
// the provider's cache), tokens out, requests and time, per turn and for the session. It reads the loop's
// model_response events; a sub-agent's calls count toward the turn that started it.
import type { TokenUsage } from '../providers/types.js';

export interface UsageTotals {
  input: number;
  cached: number;
  output: number;
  requests: number;
  /** Time spent in model calls, in ms. */
  durationMs: number;
}

export function emptyUsage(): UsageTotals {
  return { input: 0, cached: 0, output: 0, requests: 0, durationMs: 0 };
}

/** Adds one model call to `t` (a call the CLI reported no tokens for still counts as a request). */
export function addModelCall(t: UsageTotals, call: { usage?: TokenUsage; durationMs: number }): void {
  t.input += call.usage?.input ?? 0;
  t.cached += call.usage?.cached ?? 0;
  t.output += call.usage?.output ?? 0;
  t.requests += 1;
  t.durationMs += call.durationMs;
}

/** The sum of several totals. */
export function sumUsage(all: UsageTotals[]): UsageTotals {
  const t = emptyUsage();
  for (const u of all) {
    t.input += u.input;
    t.cached += u.cached;
    t.output += u.output;
    t.requests += u.requests;
    t.durationMs += u.durationMs;
  }
  return t;
}

export class UsageMeter {
  readonly session = emptyUsage();
  /** The turn under way, or the last one. */
  turn = emptyUsage();
  /** Turns begun in this session. */
  turns = 0;
  /** Size of the newest prompt sent (characters), and the input tokens the CLI reported for it. */
  lastPrompt: { chars: number; inputTokens?: number } | null = null;

  /** A new turn starts (AgentRun.prompt): the turn's totals start again. */
  beginTurn(): void {
    this.turn = emptyUsage();
    this.turns++;
  }

  /** Reads one loop event (the run's own, or a sub-agent's when `sub`). */
  observe(e: { type: string; promptChars?: number; usage?: TokenUsage; durationMs?: number }, sub = false): void {
    if (e.type === 'model_request' && !sub) this.lastPrompt = { chars: e.promptChars ?? 0 };
    if (e.type !== 'model_response') return;
    const call = { usage: e.usage, durationMs: e.durationMs ?? 0 };
    addModelCall(this.session, call);
    addModelCall(this.turn, call);
    if (!sub && this.lastPrompt && e.usage?.input !== undefined) this.lastPrompt.inputTokens = e.usage.input;
  }
}
