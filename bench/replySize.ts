// Reply size and API faults: the largest reply and the largest single TOOL_CALL line that
// arrive whole through `devx run`, per provider and mode (real gemini per call and warm, real claude,
// against the fake APIs), and the time a hung API takes to give a clear message with default settings.
// Opt-in (`node dist/bench/run.js replysize`, and `replysize-hang` for the hang, which takes minutes:
// gemini's own 60 s headers timeout, once retried; claude waits for the 600 s turn timeout).
// BENCH_REPLY_SIZES (MB, default 1,5,10,20) sets the sizes tried.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { FakeAnthropicApi } from '../test/helpers/fakeAnthropicApi.js';
import { REPO_ROOT, fakeEnv, makeHome, makeProject, runDevx } from '../test/helpers/env.js';

type Target = 'gemini spawn' | 'gemini warm' | 'claude';
const TARGETS: Target[] = ['gemini spawn', 'gemini warm', 'claude'];

function lines(size: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const l = `line ${i}: ${((i * 2654435761) >>> 0).toString(36)} ${(i * i).toString(16)}`;
    out.push(l);
    n += l.length + 1;
  }
  return out.join('\n');
}

function oneLine(size: number): string {
  const w: string[] = [];
  let n = 0;
  for (let i = 0; n < size; i++) {
    const s = `w${i}-${((i * 40503) >>> 0).toString(36)}`;
    w.push(s);
    n += s.length + 1;
  }
  return w.join(' ');
}

async function once(target: Target, kind: 'reply' | 'call' | 'hang', size: number): Promise<{ ok: boolean; ms: number; message: string }> {
  const gemini = await new FakeGeminiApi().start();
  const claude = await new FakeAnthropicApi().start();
  const home = makeHome();
  const project = makeProject({});
  const body = kind === 'reply' ? lines(size) : oneLine(size);
  const replies =
    kind === 'hang' ? [] : kind === 'reply' ? [{ text: body }] : [{ text: `TOOL_CALL: write_file | path=big.txt | content=${body}` }, { text: 'done' }];
  if (kind === 'hang') gemini.fallback = claude.fallback = { hang: true };
  else if (target === 'claude') claude.push(...replies);
  else gemini.push(...replies);
  const env = fakeEnv(gemini, home, {
    ANTHROPIC_BASE_URL: claude.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    DEVX_CLAUDE_BIN: path.join(REPO_ROOT, 'node_modules', '.bin', 'claude'),
    ...(target === 'claude' ? {} : { DEVX_PROVIDER_MODE: target === 'gemini warm' ? 'warm' : 'spawn' }),
  });
  // Default retry settings for the hang (fakeEnv shortens devx's backoff for tests).
  if (kind === 'hang') delete env.DEVX_RETRY_BASE_MS;
  const t0 = performance.now();
  const r = await runDevx(['run', '--yes', ...(target === 'claude' ? ['--provider', 'claude'] : []), 'go'], { cwd: project, env, timeoutMs: 900_000 });
  const ms = performance.now() - t0;
  await gemini.close();
  await claude.close();
  const ok =
    kind === 'reply'
      ? r.code === 0 && r.stdout.trimEnd() === body
      : kind === 'call'
        ? r.code === 0 && fs.existsSync(path.join(project, 'big.txt')) && fs.readFileSync(path.join(project, 'big.txt'), 'utf8').trimEnd() === body
        : false;
  const message =
    r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('✗'))
      .pop() ??
    r.stderr.trim().split('\n').pop() ??
    '';
  return { ok, ms, message };
}

export async function benchReplySize(): Promise<void> {
  const sizes = (process.env.BENCH_REPLY_SIZES ?? '1,5,10,20').split(',').map((s) => Number(s) * 1_000_000);
  for (const target of TARGETS) {
    for (const kind of ['reply', 'call'] as const) {
      let largest = 0;
      const notes: string[] = [];
      for (const size of sizes) {
        const r = await once(target, kind, size);
        notes.push(`${size / 1e6} MB ${r.ok ? 'ok' : 'FAILED'} ${(r.ms / 1000).toFixed(1)} s${r.ok ? '' : ` (${r.message.slice(0, 160)})`}`);
        if (!r.ok) break;
        largest = size;
      }
      console.log(
        `replysize: ${target}, largest ${kind === 'reply' ? 'reply' : 'single TOOL_CALL line'} that arrives whole: ${largest / 1e6} MB (target >= 5 MB) [${notes.join('; ')}]`,
      );
    }
  }
}

export async function benchHang(): Promise<void> {
  for (const target of TARGETS) {
    const r = await once(target, 'hang', 0);
    console.log(
      `replysize-hang: ${target}, a hung API with default settings (turn timeout 600 s) gives "${r.message.slice(0, 140)}" after ${(r.ms / 1000).toFixed(1)} s (target <= 600 s)`,
    );
  }
}
