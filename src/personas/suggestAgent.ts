// Autodelegation: which agent's description best matches a free-form prompt (lexical overlap with
// IDF over the agents' descriptions). It only suggests; applying it is opt-in and can be declined.
import { tokenize } from '../knowledge/sparse.js';
import type { AgentDef } from './loadAgents.js';

export interface Suggestion {
  agent: AgentDef;
  score: number;
}

export function suggestAgent(prompt: string, agents: AgentDef[], minScore = 1.0): Suggestion | null {
  // Builtin agents are workflow roles (changelog, qna, ...), not answers to a free-form request.
  agents = agents.filter((a) => a.scope !== 'builtin');
  if (!agents.length) return null;
  const q = new Set(tokenize(prompt));
  const docs = agents.map((a) => new Set(tokenize(`${a.name.replace(/[-_]/g, ' ')} ${a.description}`)));
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d) df.set(t, (df.get(t) ?? 0) + 1);
  let best: Suggestion | null = null;
  agents.forEach((a, i) => {
    let score = 0;
    for (const t of q) if (docs[i].has(t)) score += Math.log(1 + agents.length / (df.get(t) ?? 1));
    if (!best || score > best.score) best = { agent: a, score };
  });
  return best && (best as Suggestion).score >= minScore ? best : null;
}
