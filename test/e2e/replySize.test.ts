// Replies of any size arrive whole: the real gemini (a process per call, with and
// without a head start, and the warm ACP process) and the real claude, against the fake APIs. gemini's
// non-interactive mode exits as soon as it has printed, and a pipe loses what it had not yet passed on
// (a 5 MB answer arrived cut at 73-219 KB): devx reads the CLI's stdout from a file (util/fileOutput.ts).
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { CLAUDE_BIN, useBothFakes } from '../helpers/useBothFakes.js';

const MB = 1_000_000;

const fakes = useBothFakes();
let gemini: FakeGeminiApi;
let claude: FakeAnthropicApi;
let home: string;
beforeEach(() => ({ gemini, claude, home } = fakes));

/** Text of at least `size` characters in lines that never repeat (gemini cuts off a reply it judges a loop). */
function lines(size: number, tag: string): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const line = `${tag} line ${i}: ${((i * 2654435761) >>> 0).toString(36)} ${(i * i).toString(16)}`;
    out.push(line);
    n += line.length + 1;
  }
  return `${out.join('\n')}\nEND OF ${tag}`;
}

/** One line of at least `size` characters with no line break (no two words the same). */
function oneLine(size: number): string {
  const words: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const w = `w${i}-${((i * 40503) >>> 0).toString(36)}`;
    words.push(w);
    n += w.length + 1;
  }
  return words.join(' ');
}

type Target = 'spawn' | 'warm' | 'claude';

function env(target: Target, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return fakeEnv(gemini, home, {
    ANTHROPIC_BASE_URL: claude.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    DEVX_CLAUDE_BIN: CLAUDE_BIN,
    ...(target === 'claude' ? {} : { DEVX_PROVIDER_MODE: target }),
    ...extra,
  });
}

const args = (target: Target, ...rest: string[]) => ['run', ...(target === 'claude' ? ['--provider', 'claude'] : []), ...rest];
const api = (target: Target) => (target === 'claude' ? claude : gemini);

describe('a 5 MB reply arrives whole', () => {
  it('from gemini, a process per call: started by devx, then started ahead from the launch plan', async () => {
    const project = makeProject({});
    for (const run of ['first', 'head start']) {
      const text = lines(5 * MB, run);
      gemini.push({ text });
      // A one-shot run continues the project's conversation: each run here is one 5 MB reply, not the sum.
      fs.rmSync(path.join(project, '.devx', 'history.json'), { force: true });
      const r = await runDevx(args('spawn', 'say it all'), { cwd: project, env: env('spawn', { DEVX_DEBUG: '1' }), timeoutMs: 120_000 });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.stdout.length).toBe(text.length + 1);
      expect(r.stdout.trimEnd()).toBe(text);
      if (run === 'head start') expect(r.stderr).toMatch(/the model CLI started ahead was adopted/);
    }
    // Nothing of the stdout files is left behind.
    const leftovers = fs
      .readdirSync(path.join(home, '.devx', 'run'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.stdout'));
    expect(leftovers).toEqual([]);
  }, 180_000);

  for (const target of ['warm', 'claude'] as const) {
    it(`from ${target === 'warm' ? 'the warm gemini process' : 'claude'}`, async () => {
      const text = lines(5 * MB, target);
      api(target).push({ text });
      const r = await runDevx(args(target, 'say it all'), { cwd: makeProject({}), env: env(target), timeoutMs: 120_000 });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.stdout.trimEnd()).toBe(text);
    }, 150_000);
  }

  it('from gemini streamed as it arrives (a process per call, -o stream-json)', async () => {
    const { GeminiCliBackend } = await import('../../src/providers/gemini/geminiCli.js');
    const { runProcess } = await import('../../src/util/processRunner.js');
    const { GEMINI_BIN, tempDir } = await import('../helpers/env.js');
    const text = lines(5 * MB, 'stream');
    gemini.push({ text });
    const backend = new GeminiCliBackend({
      bin: GEMINI_BIN,
      model: 'gemini-2.5-pro',
      accounts: [],
      workDir: tempDir(),
      timeoutMs: 120_000,
      maxRetries: 0,
      baseDelayMs: 10,
      maxDelayMs: 10,
      runner: runProcess,
      env: fakeEnv(gemini, home) as Record<string, string>,
    });
    let streamed = '';
    const r = await backend.complete({ prompt: 'say it all', systemPrompt: 'S', onDelta: (t) => (streamed += t) });
    expect(r.text).toBe(text);
    expect(streamed).toBe(text);
  }, 120_000);
});

describe('a 1 MB TOOL_CALL line lands whole', () => {
  for (const target of ['spawn', 'warm', 'claude'] as const) {
    it(`through ${target}`, async () => {
      const content = oneLine(MB);
      const project = makeProject({});
      api(target).push({ text: `I will write it.\nTOOL_CALL: write_file | path=big.txt | content=${content}` }, (req: { promptText: string }) => {
        expect(req.promptText).toMatch(/TOOL_RESULT: write_file \| status=ok/);
        return { text: 'Written.' };
      });
      const r = await runDevx(args(target, '--yes', 'write big.txt'), { cwd: project, env: env(target), timeoutMs: 120_000 });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.stdout).toContain('Written.');
      expect(fs.readFileSync(path.join(project, 'big.txt'), 'utf8').trimEnd()).toBe(content);
    }, 150_000);
  }
});
