// What /stats and /context print: the session's and the last turn's model usage as the CLI reported it, and
// how full the prompt is against devx's budget and the model's window. Pure: the REPL gives the figures.
import type { UsageMeter, UsageTotals } from '../core/usageMeter.js';

/** Characters per token, for an estimate where no CLI reported a count (English text and code run 3.5 to 4.5). */
export const CHARS_PER_TOKEN = 4;

const n = (x: number) => x.toLocaleString('en-US');

/** A share as a percentage with one decimal below 10%. */
function percent(part: number, whole: number): string {
  const p = (part / whole) * 100;
  return `${p < 10 ? p.toFixed(1) : Math.round(p)}%`;
}

/** One block of totals: calls and time, then tokens. */
function renderTotals(label: string, t: UsageTotals): string[] {
  if (!t.requests) return [`${label}: no model calls yet`];
  const calls = `${t.requests} model call${t.requests === 1 ? '' : 's'} in ${(t.durationMs / 1000).toFixed(1)} s`;
  return [`${label}: ${calls}`, `  tokens: ${n(t.input)} input (${n(t.cached)} of them cached), ${n(t.output)} output`];
}

/** /stats: the session's totals and the last turn's, as the model CLI reported them. */
export function renderStats(meter: Pick<UsageMeter, 'session' | 'turn' | 'turns'>): string {
  const lines = [
    ...renderTotals(`This session (${meter.turns} turn${meter.turns === 1 ? '' : 's'})`, meter.session),
    ...(meter.turns ? renderTotals('Last turn', meter.turn) : []),
    'Tokens are as the model CLI reported them; sub-agents (spawn_gemini, agent) count too.',
  ];
  return `${lines.join('\n')}\n`;
}

export interface ContextFigures {
  /** The prompt the next turn would send now (conversation, MEMORY.md, HANDOFF.md), in characters. */
  promptChars: number;
  /** The system prompt (devx's protocol and tool manual), in characters. */
  systemChars: number;
  /** settings.contextBudgetChars: the prompt is kept under it. */
  budgetChars: number;
  /** settings.compactThreshold: the share of the budget at which devx compacts (1: never). */
  compactThreshold: number;
  model: string;
  /** The model's window in tokens, when known. */
  windowTokens: number | null;
  /** The newest call's input tokens as the CLI reported them, with its prompt's size. */
  last: { chars: number; inputTokens?: number } | null;
}

/** /context: how full the prompt is, against devx's budget and the model's window. */
export function renderContext(f: ContextFigures): string {
  const est = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
  const total = f.promptChars + f.systemChars;
  const lines = [
    `Prompt now: ${n(f.promptChars)} characters (~${n(est(f.promptChars))} tokens), plus the system prompt ${n(f.systemChars)} (~${n(est(f.systemChars))} tokens)`,
    `  devx's budget: ${percent(f.promptChars, f.budgetChars)} of ${n(f.budgetChars)} characters (contextBudgetChars)${
      f.compactThreshold < 1 ? `; compacts at ${Math.round(f.compactThreshold * 100)}%` : ''
    }`,
    f.windowTokens
      ? `  ${f.model}'s window: ~${percent(est(total), f.windowTokens)} of ${n(f.windowTokens)} tokens`
      : `  ${f.model}'s window: not known to devx`,
  ];
  if (f.last?.inputTokens !== undefined)
    lines.push(`Last model call: ${n(f.last.inputTokens)} input tokens as the CLI reported them, for a ${n(f.last.chars)}-character prompt`);
  return `${lines.join('\n')}\n`;
}
