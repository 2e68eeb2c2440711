// A Claude Code command file, run by the real `claude -p "/name args"` and by `devx run "/name args"`: the
// text each sends its model has the arguments in the same places (numbered from $0, $ARGUMENTS[N], names
// from the front-matter, \$ kept literal, a placeholder past the last word left as written).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLAUDE_BIN, useBothFakes } from '../helpers/useBothFakes.js';
import { makeProject, runDevx } from '../helpers/env.js';

const f = useBothFakes();

function runClaude(cwd: string, env: NodeJS.ProcessEnv, prompt: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, ['-p', prompt, '--output-format', 'json'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const COMMANDS: Record<string, string> = {
  // Every kind of placeholder in one file.
  'pick.md': '---\ndescription: pick\narguments: [first, second]\n---\nMARK0 [$0] [$1] [$ARGUMENTS[1]] [$first] [$second] [$5] [\\$0] [$ARGUMENTS] END0\n',
  // No placeholder: the arguments follow the text.
  'plain.md': '---\ndescription: plain\n---\nMARK1 review the code END1\n',
  // A filled value holding a placeholder is not filled again.
  'once.md': 'MARK2 [$1] [$0] END2\n',
};

const CASES: [string, string][] = [
  ['pick', `alpha 'beta gamma' delta`],
  ['plain', 'src/main.ts carefully'],
  ['once', `'$1' zed`],
];

/** The span of a prompt between a case's markers, as the model received it. */
function span(text: string, i: number): string | null {
  const m = new RegExp(`MARK${i}[\\s\\S]*?END${i}(\\n\\nARGUMENTS: [^\\n]*)?`).exec(text);
  return m ? m[0] : null;
}

describe('Claude Code commands, filled as the real claude fills them', () => {
  it.each(CASES.map((c, i) => [...c, i] as const))(
    '/%s %s',
    async (name, args, i) => {
      const dir = path.join(f.home, '.claude', 'commands');
      fs.mkdirSync(dir, { recursive: true });
      for (const [file, text] of Object.entries(COMMANDS)) fs.writeFileSync(path.join(dir, file), text);
      f.claude.fallback = { text: 'ok' };
      const c = await runClaude(makeProject({}), f.env(), `/${name} ${args}`);
      expect(c.code, c.stderr).toBe(0);
      const theirs = span(f.claude.modelCalls.map((r) => r.promptText).join('\n'), i);
      expect(theirs).not.toBeNull();
      f.gemini.push({ text: 'ok' });
      const d = await runDevx(['run', `/${name} ${args}`], { cwd: makeProject({}), env: f.env() });
      expect(d.code, d.stderr).toBe(0);
      const ours = span(f.gemini.modelCalls.map((r) => r.promptText).join('\n'), i);
      expect(ours).toBe(theirs);
    },
    120_000,
  );
});
