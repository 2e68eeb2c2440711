// One word per concept for "agent": the glossary at the top of docs/agents.md ("Words used here")
// names agent, persona, run and sub-agent, docs/architecture.md points to it, and no text in src/,
// prompts/, docs/ or README.md uses a phrase that mixes two of them. Each banned phrase below is one
// that was in devx, with why it is wrong; the test fails if any comes back.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/tools/registry.js';
import { SLASH_COMMANDS } from '../../src/cli/slashCommands.js';

const ROOT = path.resolve(__dirname, '../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** The glossary's words, each with what it names (a phrase the glossary's row must contain). */
export const WORDS: Record<string, string> = {
  agent: 'a definition: a Markdown file',
  persona: 'the agent a session is acting as',
  run: "one execution of devx's loop",
  'sub-agent': "a run started by another run's tool call",
};

/** Phrases that mix two of the words, and why. Matched case-insensitively, whole words. */
export const BANNED: { phrase: RegExp; why: string }[] = [
  {
    phrase: /\bagent personas?\b/i,
    why: 'an agent is the file and the persona is the agent a session acts as: say "persona" (or "agent as the persona")',
  },
  {
    phrase: /\bsub-?sessions?\b/i,
    why: "a run started by a tool call (spawn_gemini, the agent tool) is a sub-agent; a session is the REPL's, an editor's or devx run's hold on a project, and a sub-agent has none",
  },
  { phrase: /\bstateful agent\b/i, why: 'AgentRun is a run (of an agent, or of plain devx), not an agent' },
  { phrase: /\b(default )?devx persona\b/i, why: 'plain devx has no persona: say "plain devx" or "no persona"' },
  { phrase: /\bextension personas?\b/i, why: 'a Gemini CLI extension is read as an agent (a definition); it becomes a persona only when a session uses it' },
  { phrase: /\bpersona (file|definition)s?\b/i, why: 'a persona is not a file: the file is the agent' },
  { phrase: /\bsub-instances?\b/i, why: 'what spawn_gemini starts is a sub-agent' },
  { phrase: /\bsub-tasks?\b/i, why: 'a task is a queued request for an agent; a line per spawn_gemini or agent-tool call is a sub-agent' },
  { phrase: /\bsub-runs?\b/i, why: 'a run started by another run is a sub-agent' },
];

/** Known occurrences still to fix, each exact, in a file another change owns; any other occurrence fails (none now). */
const PENDING: { file: string; text: string }[] = [];

function filesUnder(dir: string, ext: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(rel, ext);
    return e.name.endsWith(ext) ? [rel] : [];
  });
}

/** Every text devx shows or writes about itself: its source (messages, help, comments), its prompts and its docs. */
const SCANNED = [...filesUnder('src', '.ts'), ...filesUnder('prompts', '.md'), ...filesUnder('docs', '.md'), 'README.md'];

/** The glossary section of docs/agents.md: from its heading to the next `## `. */
function glossary(): string {
  const doc = read('docs/agents.md');
  const start = doc.indexOf('\n## Words used here\n');
  expect(start, 'docs/agents.md has a "## Words used here" section').toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe('one word per concept for "agent"', () => {
  it('docs/agents.md opens with the glossary: one table row per word, saying what it names', () => {
    expect(/^## .*$/m.exec(read('docs/agents.md'))?.[0], 'the first section').toBe('## Words used here');
    const rows = glossary()
      .split('\n')
      .filter((l) => /^\| \*\*/.test(l));
    const words = rows.map((l) => /^\| \*\*([^*]+)\*\*/.exec(l)![1]);
    expect(words).toEqual(Object.keys(WORDS));
    for (const [word, meaning] of Object.entries(WORDS)) expect(rows[words.indexOf(word)], word).toContain(meaning);
  });

  it('docs/architecture.md points to the glossary, and the link resolves to its heading', () => {
    expect(read('docs/architecture.md')).toContain('(agents.md#words-used-here)');
    expect(read('docs/agents.md')).toMatch(/^## Words used here$/m);
  });

  it('every word of the glossary is used in docs/agents.md beyond the glossary itself', () => {
    const rest = read('docs/agents.md').replace(glossary(), '');
    for (const word of Object.keys(WORDS)) expect(rest, word).toMatch(new RegExp(`\\b${word}\\b`, 'i'));
  });

  it('no text in src/, prompts/, docs/ or README.md uses a phrase that mixes two words', () => {
    expect(SCANNED.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of SCANNED) {
      const lines = read(file).split('\n');
      lines.forEach((line, i) => {
        for (const { phrase, why } of BANNED) {
          const m = phrase.exec(line);
          if (!m) continue;
          if (PENDING.some((p) => p.file === file && line.includes(p.text) && p.text.toLowerCase().includes(m[0].toLowerCase()))) continue;
          found.push(`${file}:${i + 1}: "${m[0]}": ${why}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('the banned phrases are caught where they used to be (the check is not vacuous)', () => {
    const old = [
      'pick an agent persona (arrow keys, type to filter, Enter to switch)',
      'spawn_gemini is not available here: sub-sessions cannot spawn further sub-sessions (depth limit 1)',
      'AgentRun (a stateful agent)',
      'Back to the default devx persona.',
      'Gemini CLI extension personas',
      'the complete, self-contained task for the sub-instance',
      'The REPL shows a live line per sub-task',
      'a headless sub-run',
    ];
    for (const line of old)
      expect(
        BANNED.some((b) => b.phrase.test(line)),
        line,
      ).toBe(true);
    // The words themselves, used as the glossary says, are not caught.
    const good = ['start with this agent as the persona', 'sub-agents cannot spawn further sub-agents', 'Back to plain devx (no persona).'];
    for (const line of good)
      expect(
        BANNED.some((b) => b.phrase.test(line)),
        line,
      ).toBe(false);
  });

  it('the messages people and the model read use the words: /agent picks a persona, the depth limit names sub-agents', async () => {
    const agentSlash = SLASH_COMMANDS.find((c) => c.names.includes('agent'))!;
    expect(agentSlash.summary).toMatch(/\bpersona\b/);
    const spawn = builtinTools().find((t) => t.name === 'spawn_gemini')!;
    const agentTool = builtinTools().find((t) => t.name === 'agent')!;
    const ctx = { signal: new AbortController().signal } as never;
    await expect(spawn.execute(ctx, { query: 'x' } as never)).rejects.toThrow(/sub-agents cannot spawn further sub-agents/);
    await expect(agentTool.execute(ctx, { name: 'changelog', input: 'x' } as never)).rejects.toThrow(/a sub-agent cannot call further agents/);
  });
});
