// The pure parts of background commands (the bounded output tail, the session's table of them, /bg's
// lines) and of usage (the meter over loop events, /stats, /context, the models' windows).
import { describe, expect, it } from 'vitest';
import { OutputTail } from '../../src/tools/outputTail.js';
import { BackgroundCommands, describeState, renderBackgroundList, type BackgroundEvent, type BackgroundExit } from '../../src/tools/backgroundCommands.js';
import { UsageMeter, addModelCall, emptyUsage } from '../../src/core/usageMeter.js';
import { renderContext, renderStats } from '../../src/cli/usageReport.js';
import { contextWindow } from '../../src/providers/contextWindow.js';
import { builtinTools, resolveToolName } from '../../src/tools/registry.js';

describe('the output tail of a background command', () => {
  it('gives what arrived since the last read, once', () => {
    const t = new OutputTail(100);
    t.append('listening on 4000\n');
    expect(t.unread).toBe(18);
    expect(t.read()).toEqual({ text: 'listening on 4000\n', dropped: 0 });
    expect(t.read()).toEqual({ text: '', dropped: 0 });
    t.append('hit /\n');
    expect(t.peek()).toBe('hit /\n');
    expect(t.read()).toEqual({ text: 'hit /\n', dropped: 0 });
  });

  it('keeps the newest characters and says how many unread ones were dropped', () => {
    const t = new OutputTail(10);
    t.append('0123456789');
    t.read();
    for (let i = 0; i < 50; i++) t.append('ab');
    const r = t.read();
    expect(r.text).toBe('ababababab');
    expect(r.dropped).toBe(90);
    expect(r.text.length + r.dropped).toBe(100);
    expect(t.size).toBe(110);
  });
});

/** A launch the test ends itself: what the runner would report, without a process. */
function launchHeld() {
  let end!: (x: BackgroundExit) => void;
  let say!: (text: string) => void;
  let stopped = false;
  const launch = (l: { signal: AbortSignal; onOutput(t: string): void; onGroup(p: number): void }) => {
    say = l.onOutput;
    l.onGroup(4242);
    l.signal.addEventListener('abort', () => {
      stopped = true;
      end({ exitCode: null, signal: 'SIGTERM', notes: [] });
    });
    return new Promise<BackgroundExit>((r) => (end = r));
  };
  return { launch, say: (t: string) => say(t), end: (x: BackgroundExit) => end(x), stopped: () => stopped };
}

describe("the session's background commands", () => {
  it('numbers them, reads output since the last look, waits for a pattern, and tells start, stop and exit', async () => {
    const events: BackgroundEvent[] = [];
    const bg = new BackgroundCommands((e) => events.push(e));
    const a = launchHeld();
    const v = bg.start('node server.js', null, a.launch);
    expect(v).toMatchObject({ id: 'bg1', state: 'running', sandbox: null });
    const waited = bg.wait('bg1', { until: /listening on \d+/, ms: 60_000 });
    a.say('starting\n');
    a.say('listening on 4000\n');
    await waited;
    expect(bg.read('bg1')).toMatchObject({ text: 'starting\nlistening on 4000\n', dropped: 0, view: { state: 'running' } });
    expect(bg.read('nope')).toBeNull();
    expect(bg.running).toBe(1);
    const b = launchHeld();
    bg.start('make watch', 'bwrap:build', b.launch);
    b.end({ exitCode: 2, signal: null, notes: ['[a note]'] });
    await bg.wait('bg2', { ms: 60_000 });
    await bg.stopAll('session');
    expect(a.stopped()).toBe(true);
    expect(bg.list().map((x) => [x.id, describeState(x)])).toEqual([
      ['bg1', 'stopped (SIGTERM)'],
      ['bg2', 'exited (exit 2)'],
    ]);
    expect(events.map((e) => `${e.phase} ${e.id} ${e.by ?? ''}`.trim())).toEqual([
      'start bg1',
      'start bg2',
      'exit bg2',
      'stop bg1 session',
      'exit bg1 session',
    ]);
    expect(events.find((e) => e.phase === 'stop')?.pgid).toBe(4242);
  });

  it('a launch that throws is an ended command that says why', async () => {
    const bg = new BackgroundCommands();
    bg.start('x', null, () => {
      throw new Error('no sandbox');
    });
    await bg.wait('bg1', { ms: 60_000 });
    await Promise.resolve();
    expect(bg.list()[0]).toMatchObject({ state: 'exited', notes: ['[it did not run: no sandbox]'] });
  });

  it('/bg shows each with its state, time and unread output', () => {
    const now = 1_000_000;
    const lines = renderBackgroundList(
      [
        { id: 'bg1', cmd: 'npm run dev', sandbox: null, state: 'running', exitCode: null, signal: null, startedAt: now - 12_000, unread: 40, notes: [] },
        {
          id: 'bg2',
          cmd: 'make',
          sandbox: null,
          state: 'exited',
          exitCode: 0,
          signal: null,
          startedAt: now - 200_000,
          endedAt: now - 5000,
          unread: 0,
          notes: [],
        },
      ],
      now,
    );
    expect(lines).toBe('  bg1   running                 12s, 40 chars unread  npm run dev\n  bg2   exited (exit 0)       3m15s  make\n');
    expect(renderBackgroundList([])).toBe('No background commands in this session.\n');
  });

  it('command_output and stop_command are built in, under their Claude Code names too', () => {
    const names = builtinTools().map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['command_output', 'stop_command']));
    expect(resolveToolName('BashOutput')).toBe('command_output');
    expect(resolveToolName('KillShell')).toBe('stop_command');
  });
});

describe('usage', () => {
  it('the meter adds every model call to the turn and the session; a new turn starts again', () => {
    const m = new UsageMeter();
    m.beginTurn();
    m.observe({ type: 'model_request', promptChars: 4000 });
    m.observe({ type: 'model_response', usage: { input: 1000, cached: 200, output: 50 }, durationMs: 900 });
    m.observe({ type: 'model_response', usage: { input: 300, output: 5 }, durationMs: 100 }, true); // a sub-agent's
    expect(m.turn).toEqual({ input: 1300, cached: 200, output: 55, requests: 2, durationMs: 1000 });
    expect(m.lastPrompt).toEqual({ chars: 4000, inputTokens: 1000 });
    m.beginTurn();
    m.observe({ type: 'model_response', durationMs: 50 }); // no usage reported: still a request
    expect(m.turn).toEqual({ input: 0, cached: 0, output: 0, requests: 1, durationMs: 50 });
    expect(m.session).toEqual({ input: 1300, cached: 200, output: 55, requests: 3, durationMs: 1050 });
    expect(m.turns).toBe(2);
  });

  it('/stats says the session and the last turn', () => {
    const m = new UsageMeter();
    expect(renderStats(m)).toMatch(/^This session \(0 turns\): no model calls yet\n/);
    m.beginTurn();
    m.observe({ type: 'model_response', usage: { input: 12345, cached: 2000, output: 678 }, durationMs: 2500 });
    expect(renderStats(m)).toBe(
      [
        'This session (1 turn): 1 model call in 2.5 s',
        '  tokens: 12,345 input (2,000 of them cached), 678 output',
        'Last turn: 1 model call in 2.5 s',
        '  tokens: 12,345 input (2,000 of them cached), 678 output',
        'Tokens are as the model CLI reported them; sub-agents (spawn_gemini, agent) count too.',
        '',
      ].join('\n'),
    );
  });

  it("/context measures the prompt against the budget and the model's window", () => {
    const text = renderContext({
      promptChars: 40_000,
      systemChars: 20_000,
      budgetChars: 400_000,
      compactThreshold: 0.8,
      model: 'gemini-2.5-pro',
      windowTokens: contextWindow('gemini-2.5-pro'),
      last: { chars: 39_000, inputTokens: 14_000 },
    });
    expect(text).toBe(
      [
        'Prompt now: 40,000 characters (~10,000 tokens), plus the system prompt 20,000 (~5,000 tokens)',
        "  devx's budget: 10% of 400,000 characters (contextBudgetChars); compacts at 80%",
        "  gemini-2.5-pro's window: ~1.4% of 1,048,576 tokens",
        'Last model call: 14,000 input tokens as the CLI reported them, for a 39,000-character prompt',
        '',
      ].join('\n'),
    );
    expect(renderContext({ promptChars: 10, systemChars: 0, budgetChars: 100, compactThreshold: 1, model: 'mystery', windowTokens: null, last: null })).toBe(
      "Prompt now: 10 characters (~3 tokens), plus the system prompt 0 (~0 tokens)\n  devx's budget: 10% of 100 characters (contextBudgetChars)\n  mystery's window: not known to devx\n",
    );
  });

  it("knows the providers' windows", () => {
    expect(contextWindow('gemini-2.5-flash')).toBe(1_048_576);
    expect(contextWindow('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindow('sonnet')).toBe(200_000);
    expect(contextWindow('gpt-5-codex')).toBe(400_000);
    expect(contextWindow('llama')).toBeNull();
    const t = emptyUsage();
    addModelCall(t, { usage: { input: 1 }, durationMs: 2 });
    expect(t).toEqual({ input: 1, cached: 0, output: 0, requests: 1, durationMs: 2 });
  });
});
