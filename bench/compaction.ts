// Compaction: the characters devx sends per model request over a 200-turn scripted
// session, with and without compaction. The session runs through AgentRun with project history, as the
// REPL and `devx run` do, against a scripted backend: each turn reads a source file of a generated
// project (2-14 KB), globs or searches it, and answers in prose. Summary calls return a summary of
// realistic length (~3 KB). Tokens are estimated as characters / 4 (no tokenizer is involved).
import fs from 'node:fs';
import path from 'node:path';
import { ScriptedBackend } from '../src/providers/scripted.js';
import type { ModelRequest } from '../src/providers/types.js';
import { AgentRun } from '../src/runtime/agentRun.js';
import { makeProject, tempDir } from '../test/helpers/env.js';

const TURNS = Number(process.env.BENCH_COMPACT_TURNS ?? 200);
const BUDGET = 400_000;
const FILES = 40;

/** A deterministic generator, so both runs see the same session. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function sourceFile(i: number, rand: () => number): string {
  const lines = [`// src/mod${i}.ts: module ${i} of the generated project`, `import { helper${(i + 1) % FILES} } from './mod${(i + 1) % FILES}.js';`, ''];
  const fns = 8 + Math.floor(rand() * 40);
  for (let f = 0; f < fns; f++) {
    lines.push(
      `/** Computes value ${f} of module ${i} from its inputs. */`,
      `export function fn${i}_${f}(count: number, label: string): string {`,
      `  const scaled = count * ${Math.floor(rand() * 1000)} + ${f};`,
      `  if (scaled > ${Math.floor(rand() * 5000)}) return helper${(i + 1) % FILES}(label, scaled);`,
      `  return \`\${label}-\${scaled}-${i}-${f}\`;`,
      '}',
      '',
    );
  }
  return lines.join('\n');
}

interface Figures {
  sent: number[];
  summaryCalls: number;
  summarySent: number;
}

const isSummary = (req: ModelRequest) => req.systemPrompt.startsWith('You condense');

async function session(project: string, home: string, threshold: number): Promise<Figures> {
  fs.writeFileSync(
    path.join(project, '.devx', 'settings.json'),
    JSON.stringify({ contextBudgetChars: BUDGET, compactThreshold: threshold, rateLimits: { toolCallsPerMinute: 100_000 } }),
  );
  fs.rmSync(path.join(project, '.devx', 'history.json'), { force: true });
  fs.rmSync(path.join(project, '.devx', 'transcripts'), { recursive: true, force: true });
  const rand = rng(7);
  const figures: Figures = { sent: [], summaryCalls: 0, summarySent: 0 };
  const reply = (req: ModelRequest): string => {
    const sent = req.prompt.length + req.systemPrompt.length;
    if (isSummary(req)) {
      figures.summaryCalls++;
      figures.summarySent += sent;
      const facts = Array.from(
        { length: 30 },
        (_, k) => `- src/mod${k}.ts: fn${k}_${k % 7} scales its count and falls back to helper${(k + 1) % FILES} above its limit.`,
      );
      return `## Goal\nUnderstand the generated project module by module.\n\n## Done so far\n${facts.join('\n')}\n\n## Facts to remember\n- Modules import the next one's helper.\n\n## Open\n- Continue with the next module.`;
    }
    figures.sent.push(sent);
    // The newest message decides the move: a request gets tool calls, tool results get an answer.
    const last = req.prompt.lastIndexOf('\n## ');
    const heading = req.prompt.slice(last + 1, req.prompt.indexOf('\n', last + 1));
    const turn = Number(/turn (\d+):/.exec(req.prompt.slice(req.prompt.lastIndexOf('## User')))?.[1] ?? 0);
    const file = `src/mod${(turn * 7) % FILES}.ts`;
    if (heading === '## User') {
      const second = turn % 3 === 0 ? `TOOL_CALL: search_code | pattern=helper${turn % FILES}\\b | path=src` : 'TOOL_CALL: glob | pattern=src/**/*.ts';
      return `I'll read ${file} first.\nTOOL_CALL: read_file | path=${file}\n${second}`;
    }
    const words = Array.from({ length: 80 + Math.floor(rand() * 60) }, (_, k) => `w${(turn * 31 + k) % 997}`).join(' ');
    return `${file} defines its functions the same way: each scales its count and hands larger values to the next module's helper. Notes: ${words}.`;
  };
  const backend = new ScriptedBackend(Array.from({ length: TURNS * 3 + 50 }, () => reply));
  const run = await AgentRun.create({ cwd: project, env: { PATH: process.env.PATH, HOME: home, DEVX_RG: 'none' }, backend, history: 'project', yes: true });
  // Every tool call must run, or the session is not the one measured (the default rate limit would refuse them).
  const failed: string[] = [];
  run.subscribe((e) => {
    if (e.type === 'tool_end' && e.outcome.status === 'error') failed.push(`${e.outcome.summary}: ${e.outcome.content.slice(0, 200)}`);
  });
  try {
    for (let t = 0; t < TURNS; t++) {
      const r = await run.prompt(`turn ${t}: what does src/mod${(t * 7) % FILES}.ts do, and who calls its helpers?`);
      if (r.status !== 'answered' || failed.length) throw new Error(`turn ${t} ended ${r.status}: ${r.error?.message ?? failed[0]}`);
    }
  } finally {
    await run.dispose();
  }
  return figures;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const k = (n: number) => `${(n / 1000).toFixed(1)} k`;
const line = (f: Figures) => {
  const total = f.sent.reduce((a, b) => a + b, 0);
  return `median ${k(pct(f.sent, 0.5))} chars (≈ ${k(pct(f.sent, 0.5) / 4)} tokens), p95 ${k(pct(f.sent, 0.95))}, max ${k(Math.max(...f.sent))}, total over ${f.sent.length} requests ${(total / 1e6).toFixed(2)} M chars (≈ ${(total / 4e6).toFixed(2)} M tokens)`;
};

export async function benchCompaction(): Promise<void> {
  const rand = rng(42);
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/mod${i}.ts`] = sourceFile(i, rand);
  const project = makeProject(files);
  fs.mkdirSync(path.join(project, '.devx'), { recursive: true });
  const home = tempDir('devx-bench-compact-home-');
  const off = await session(project, home, 1);
  const on = await session(project, home, 0.8);
  const total = (f: Figures) => f.sent.reduce((a, b) => a + b, 0);
  const withSummaries = total(on) + on.summarySent;
  console.log(
    `compaction: ${TURNS} scripted turns through AgentRun with project history, budget ${BUDGET} chars; characters sent per request (prompt + system prompt; tokens ≈ chars / 4, estimated, not counted)`,
  );
  console.log(`  without compaction (the prompt builder elides): ${line(off)}`);
  console.log(`  with compaction at 80% of the budget:           ${line(on)}`);
  console.log(
    `  summary calls: ${on.summaryCalls}, ${(on.summarySent / 1e6).toFixed(2)} M chars sent in all; with them, compaction sends ${(withSummaries / 1e6).toFixed(2)} M chars against ${(total(off) / 1e6).toFixed(2)} M without (ratio ${(withSummaries / total(off)).toFixed(2)}); median request ratio ${(pct(on.sent, 0.5) / pct(off.sent, 0.5)).toFixed(2)}`,
  );
}
