// Long sessions stay whole: compaction near the budget and on /compact, its failure
// fallback, the transcript kept on disk, oversized input refused, cut tool output shown to the user,
// and history that never starts with an orphaned tool result.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { BackendError, type ModelRequest } from '../../src/providers/types.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { applyResume, endSession, startSession, type Started } from '../../src/runtime/startSession.js';
import type { AgentEvent } from '../../src/core/loop.js';
import { dropOrphanedToolResults, type Message } from '../../src/core/messages.js';
import { buildPrompt } from '../../src/core/buildPrompt.js';
import { planCompaction, renderForSummary } from '../../src/core/compact.js';
import { historyFile, loadHistory, saveHistory, trimHistory } from '../../src/session/history.js';
import { ownerId } from '../../src/session/ownerId.js';
import { conversationTranscript } from '../../src/session/transcripts.js';
import { runToolCall } from '../../src/tools/runToolCall.js';
import { createRenderer } from '../../src/cli/renderEvents.js';
import { makeLoopDeps } from '../helpers/loopDeps.js';
import { makePolicy } from '../helpers/policy.js';
import { makeProject, tempDir } from '../helpers/env.js';

const AT = '2026-01-01T00:00:00.000Z';
const msg = (role: Message['role'], content: string): Message => ({ role, content, at: AT });
const isSummaryCall = (req: ModelRequest) => req.systemPrompt.startsWith('You condense');

let root: string;
let home: string;
const runs: AgentRun[] = [];
beforeEach(() => {
  root = makeProject({ '.devx/settings.json': JSON.stringify({ contextBudgetChars: 10_000 }) }, { git: false });
  home = tempDir('devx-compact-home-');
});
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});

/** A backend that answers each turn with a long reply and each summary call with `summary`. */
function backendFor(summary: (req: ModelRequest) => string = () => 'SUMMARY: the user counted turns 0 to 2.') {
  const replies = Array.from({ length: 200 }, () => (req: ModelRequest) => (isSummaryCall(req) ? summary(req) : `Answer: ${'a'.repeat(1000)}`));
  return new ScriptedBackend(replies);
}

async function projectRun(backend: ScriptedBackend, over: Record<string, unknown> = {}): Promise<{ run: AgentRun; events: AgentEvent[] }> {
  const run = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend, history: 'project', yes: true, ...over });
  runs.push(run);
  const events: AgentEvent[] = [];
  run.subscribe((e) => events.push(e));
  return { run, events };
}

const turnText = (i: number) => `turn ${i} text ${String(i).repeat(1000)}`;

describe('compaction near the budget', () => {
  it('one summary call replaces the older turns; the newest stay verbatim; the next request carries the summary; the transcript keeps the rest', async () => {
    const backend = backendFor();
    const { run, events } = await projectRun(backend);
    for (let i = 0; i < 4; i++) await run.prompt(turnText(i));
    expect(backend.requests.filter(isSummaryCall)).toHaveLength(0);
    // The fifth turn would take the conversation past 80% of the budget: compacted first.
    const r = await run.prompt(turnText(4));
    expect(r.status).toBe('answered');
    expect(backend.requests.map(isSummaryCall)).toEqual([false, false, false, false, true, false]);
    const summaryReq = backend.requests[4];
    expect(summaryReq.prompt).toContain('turn 0 text');
    expect(summaryReq.prompt).toContain('turn 2 text');
    expect(summaryReq.prompt).not.toContain('turn 3 text');
    const next = backend.requests[5].prompt;
    expect(next).toContain('SUMMARY: the user counted turns 0 to 2.');
    expect(next).not.toContain('turn 0 text');
    expect(next).toContain('turn 3 text');
    expect(next).toContain('turn 4 text');

    const done = events.find((e) => e.type === 'compaction' && e.phase === 'done');
    expect(done).toMatchObject({ reason: 'auto', messages: 6, transcript: path.join('.devx', 'transcripts', 'conversation.jsonl') });
    if (done?.type === 'compaction' && done.phase === 'done') expect(done.afterChars).toBeLessThan(done.beforeChars / 2);
    expect(run.history[0]).toMatchObject({ role: 'devx', summaryOf: 6 });
    expect(run.history.map((m) => m.role)).toEqual(['devx', 'user', 'assistant', 'user', 'assistant']);
    // Saved with the mark, and reloaded as a summary.
    expect(loadHistory(historyFile(root)).messages[0]).toMatchObject({ role: 'devx', summaryOf: 6 });
    const lines = fs
      .readFileSync(conversationTranscript(root), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(lines[0].content).toBe(turnText(0));
    expect(lines[0].compactedAt).toEqual(expect.any(String));
    expect(fs.readFileSync(path.join(root, '.devx', 'transcripts', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a second compaction folds the first summary in and counts every original message; the transcript gets only the originals', async () => {
    const backend = backendFor((req) => (req.prompt.includes('Summary of 6 earlier messages') ? 'SECOND SUMMARY' : 'FIRST SUMMARY'));
    const { run } = await projectRun(backend);
    for (let i = 0; i < 9; i++) await run.prompt(turnText(i));
    const summaries = backend.requests.filter(isSummaryCall);
    expect(summaries).toHaveLength(2);
    expect(summaries[1].prompt).toContain('FIRST SUMMARY');
    expect(run.history[0]).toMatchObject({ summaryOf: 12 });
    expect(run.history[0].content).toContain('SECOND SUMMARY');
    const lines = fs
      .readFileSync(conversationTranscript(root), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(lines.every((l) => l.summaryOf === undefined)).toBe(true);
    expect(lines.map((l) => l.content.slice(0, 7)).filter((c: string) => c.startsWith('turn'))).toEqual([
      'turn 0 ',
      'turn 1 ',
      'turn 2 ',
      'turn 3 ',
      'turn 4 ',
      'turn 5 ',
    ]);
  });

  it('a failed summary call changes nothing: the turn goes on with elision, the user is told, and the next turns do not retry at once', async () => {
    const backend = backendFor(() => {
      throw new BackendError('quota', 'out of quota');
    });
    const { run, events } = await projectRun(backend);
    for (let i = 0; i < 4; i++) await run.prompt(turnText(i));
    const before = run.history.map((m) => m.content);
    const r = await run.prompt(turnText(4));
    expect(r.status).toBe('answered');
    expect(events.find((e) => e.type === 'compaction' && e.phase === 'failed')).toMatchObject({
      reason: 'auto',
      error: 'the summary call failed (quota): out of quota',
    });
    expect(run.history.slice(0, before.length).map((m) => m.content)).toEqual(before);
    expect(run.history.some((m) => m.summaryOf)).toBe(false);
    expect(fs.existsSync(conversationTranscript(root))).toBe(false);
    expect(backend.requests.at(-1)!.prompt).toContain('turn 0 text');
    // The next turn does not try again; its request goes out with the oldest messages elided by the prompt builder.
    await run.prompt(turnText(5));
    expect(backend.requests.filter(isSummaryCall)).toHaveLength(1);
    expect(backend.requests.at(-1)!.prompt).toMatch(/earlier messages were elided to fit the context budget/);
  });

  it('a summary no shorter than what it replaces is refused, and nothing changes', async () => {
    const backend = backendFor(() => 'Long-winded. '.repeat(120));
    const { run, events } = await projectRun(backend);
    await run.prompt('first');
    await run.prompt('second');
    expect(await run.compact()).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^the summary \(\d+ characters\) would not be shorter than the \d+ characters it replaces$/),
    });
    expect(events.find((e) => e.type === 'compaction' && e.phase === 'failed')).toMatchObject({ reason: 'asked' });
    expect(run.history.map((m) => m.content.slice(0, 6))).toEqual(['first', 'Answer', 'second', 'Answer']);
    expect(fs.existsSync(conversationTranscript(root))).toBe(false);
  });

  it('a transcripts folder that is a link: nothing is written through it and the history stays', async () => {
    const outside = tempDir('devx-compact-outside-');
    fs.mkdirSync(path.join(root, '.devx'), { recursive: true });
    fs.symlinkSync(outside, path.join(root, '.devx', 'transcripts'));
    const backend = backendFor();
    const { run, events } = await projectRun(backend);
    for (let i = 0; i < 5; i++) await run.prompt(turnText(i));
    expect(events.find((e) => e.type === 'compaction' && e.phase === 'failed')).toMatchObject({
      error: expect.stringMatching(/transcript could not be written.*symbolic link/),
    });
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(run.history).toHaveLength(10);
  });

  it('compactThreshold 1 turns the automatic compaction off', async () => {
    fs.writeFileSync(path.join(root, '.devx', 'settings.json'), JSON.stringify({ contextBudgetChars: 10_000, compactThreshold: 1 }));
    const backend = backendFor();
    const { run } = await projectRun(backend);
    for (let i = 0; i < 6; i++) await run.prompt(turnText(i));
    expect(backend.requests.filter(isSummaryCall)).toHaveLength(0);
  });

  it('works in a session as `devx run` starts one (project history), and after a restart', async () => {
    const backend = backendFor();
    const env = { PATH: process.env.PATH, HOME: home };
    let s: Started = await startSession({ cwd: root, env, backend, yes: true });
    for (let i = 0; i < 3; i++) await s.run.prompt(turnText(i));
    await endSession(s, { draft: 'none' });
    await s.run.dispose();
    // A new one-shot run continues .devx/history.json and compacts before its model call.
    s = await startSession({ cwd: root, env, backend, yes: true });
    const events: AgentEvent[] = [];
    s.run.subscribe((e) => events.push(e));
    await s.run.prompt(turnText(3));
    await s.run.prompt(turnText(4));
    expect(events.filter((e) => e.type === 'compaction').map((e) => (e as { phase: string }).phase)).toEqual(['start', 'done']);
    expect(s.run.history[0].summaryOf).toBe(6);
    await endSession(s, { draft: 'none' });
    await s.run.dispose();
  });
});

describe('resume after a compaction', () => {
  it('/resume keeps the compacted conversation (summary and newest turns) rather than reloading the whole session', async () => {
    const backend = backendFor();
    const env = { PATH: process.env.PATH, HOME: home };
    let s: Started = await startSession({ cwd: root, env, backend, yes: true });
    for (let i = 0; i < 5; i++) await s.run.prompt(turnText(i));
    expect(s.run.history[0].summaryOf).toBe(6);
    await endSession(s, { draft: 'none' });
    await s.run.dispose();
    s = await startSession({ cwd: root, env, backend, yes: true });
    expect(applyResume(s, undefined)).toMatch(/^Resumed session/);
    expect(s.run.history[0]).toMatchObject({ role: 'devx', summaryOf: 6 });
    expect(s.run.history.map((m) => m.role)).toEqual(['devx', 'user', 'assistant', 'user', 'assistant', 'devx']);
    await endSession(s, { draft: 'none' });
    await s.run.dispose();
  });
});

describe('/compact (on request)', () => {
  it('compacts all but the newest turns even under the threshold; with one turn there is nothing to compact', async () => {
    fs.writeFileSync(path.join(root, '.devx', 'settings.json'), JSON.stringify({}));
    const backend = backendFor();
    const { run, events } = await projectRun(backend);
    await run.prompt('only turn');
    expect(await run.compact()).toMatchObject({ status: 'nothing', message: expect.stringMatching(/^nothing to compact/) });
    await run.prompt('second turn');
    await run.prompt('third turn');
    const r = await run.compact();
    expect(r).toMatchObject({ status: 'compacted', messages: 4 });
    expect(events.find((e) => e.type === 'compaction' && e.phase === 'done')).toMatchObject({ reason: 'asked', messages: 4 });
    expect(run.history.map((m) => m.role)).toEqual(['devx', 'user', 'assistant']);
    expect(run.history[1].content).toBe('third turn');
    // Compacting again right away: only the summary is older than the last turn.
    expect((await run.compact()).status).toBe('nothing');
  });

  it('a run without project history has nothing to compact', async () => {
    const { run } = await projectRun(backendFor(), { history: 'none' });
    expect((await run.compact()).status).toBe('nothing');
  });
});

describe('oversized input', () => {
  it('a message over the budget is refused before anything is sent, saying how big it is and what to do', async () => {
    const backend = backendFor();
    const { run, events } = await projectRun(backend);
    const r = await run.prompt('x'.repeat(12_000));
    expect(r.status).toBe('error');
    expect(r.error).toMatchObject({
      kind: 'too_large',
      message: expect.stringMatching(
        /^Not sent: your message is 12,0\d\d characters, and the context budget \(contextBudgetChars 10,000\) leaves room for 9,\d{3}\. Shorten it, or save it to a file/,
      ),
    });
    expect(backend.requests).toHaveLength(0);
    expect(run.history).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'turn_end']);
    // Just under the room is sent.
    expect((await run.prompt('y'.repeat(9_000))).status).toBe('answered');
  });
});

describe('cut tool output is shown to the user', () => {
  it('the outcome says how much was cut and where the whole output is; the REPL prints it', async () => {
    const dir = makeProject({ 'big.txt': Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n') }, { git: false });
    const deps = makeLoopDeps(dir, new ScriptedBackend([]), await makePolicy(dir), { maxOutputChars: 2000 });
    const o = await runToolCall({ tool: 'read_file', args: { path: 'big.txt' } }, deps);
    expect(o.status).toBe('ok');
    expect(o.cut).toMatchObject({ totalChars: expect.any(Number), savedAs: expect.stringMatching(/^\.devx\/tool-output\/read_file-/) });
    const small = await runToolCall({ tool: 'list_directory', args: { path: '.' } }, deps);
    expect(small.cut).toBeUndefined();
    const out = new PassThrough();
    let shown = '';
    out.on('data', (d) => (shown += d));
    const r = createRenderer({ out: out as unknown as NodeJS.WriteStream, answerOut: null, env: { NO_COLOR: '1' } });
    r.onEvent({ type: 'tool_end', outcome: o });
    r.onEvent({
      type: 'compaction',
      phase: 'done',
      reason: 'auto',
      messages: 142,
      beforeChars: 58_000,
      afterChars: 6_200,
      transcript: '.devx/transcripts/conversation.jsonl',
    });
    r.onEvent({ type: 'compaction', phase: 'failed', reason: 'auto', messages: 3, error: 'the summary call failed (quota): out' });
    expect(shown).toMatch(
      new RegExp(
        `output cut for the model to [\\d,]+ of ${o.cut!.totalChars.toLocaleString('en-US')} characters; the whole output is in \\.devx/tool-output/read_file-`,
      ),
    );
    expect(shown).toContain('compacted 142 messages into a summary (58 k → 6.2 k characters); the full transcript is in .devx/transcripts/conversation.jsonl');
    expect(shown).toContain(
      'could not compact the conversation: the summary call failed (quota): out; nothing was lost, and older messages are elided from the prompt instead',
    );
  });
});

describe('history never starts with an orphaned tool result', () => {
  const convo = (): Message[] => [
    msg('user', 'q0'),
    msg('assistant', `Reading b. ${'p'.repeat(2000)}\nTOOL_CALL: read_file | path=b`),
    msg('tool', 'S'.repeat(3000)),
    msg('assistant', 'done 0'),
    msg('user', 'q1'),
    msg('assistant', 'done 1'),
  ];

  it('dropOrphanedToolResults drops leading tool messages only', () => {
    expect(dropOrphanedToolResults([msg('tool', 'x'), msg('tool', 'y'), msg('user', 'q'), msg('tool', 'z')]).map((m) => m.content)).toEqual(['q', 'z']);
    const ok = [msg('user', 'q')];
    expect(dropOrphanedToolResults(ok)).toBe(ok);
  });

  it('buildPrompt: dropping an assistant call drops its result with it', () => {
    // Dropping the oldest messages stops right after the call; its result must not stay behind.
    const p = buildPrompt({ messages: convo(), turnStart: 4, budgetChars: 4400 });
    expect(p.text).not.toContain('SSSS');
    expect(p.elidedMessages).toBe(3);
    expect(p.text).toMatch(/\[3 earlier messages were elided to fit the context budget\]\n\n## Assistant \(you\)\ndone 0/);
  });

  it('buildPrompt keeps a leading summary when it drops older messages', () => {
    const messages = [{ ...msg('devx', 'Summary of the 40 earlier messages: KEEP ME'), summaryOf: 40 }, ...convo()];
    const p = buildPrompt({ messages, turnStart: 5, budgetChars: 4400 });
    expect(p.text).toContain('KEEP ME');
    expect(p.text).not.toContain('SSSS');
    expect(p.text).toMatch(/\[3 earlier messages \(after the summary\) were elided/);
  });

  it('trimming to the size cap and loading history.json never leave a leading tool result', () => {
    const messages = convo();
    // The cap falls between the call and its result: the result goes with its call.
    expect(trimHistory(messages, 3100).map((m) => m.content)).toEqual(['done 0', 'q1', 'done 1']);
    const file = path.join(tempDir(), 'history.json');
    // Written by this user's devx: it carries their owner id.
    fs.writeFileSync(file, JSON.stringify({ version: 1, owner: ownerId(), messages: messages.slice(2) }));
    expect(loadHistory(file).messages[0]).toMatchObject({ role: 'assistant', content: 'done 0' });
    saveHistory(file, messages.slice(2));
    expect(loadHistory(file).messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
  });

  it('compaction cuts at the start of a turn, so the kept part starts with a request', () => {
    const messages = [...convo(), msg('user', 'q2'), msg('assistant', 'TOOL_CALL: x'), msg('tool', 'T'.repeat(5000)), msg('assistant', 'done 2')];
    const plan = planCompaction(messages, 1000);
    expect(plan).toEqual({ cut: 6, represents: 6 });
    expect(messages[plan!.cut].role).toBe('user');
    expect(planCompaction([msg('user', 'only'), msg('assistant', 'one turn')], 10)).toBeNull();
  });

  it('the summariser sees long tool results cut in the middle and an earlier summary always', () => {
    const messages = [
      { ...msg('devx', 'OLD SUMMARY'), summaryOf: 9 },
      msg('user', 'q'),
      msg('tool', `HEAD${'m'.repeat(10_000)}TAIL`),
      msg('user', 'z'.repeat(5000)),
    ];
    const text = renderForSummary(messages, 9000);
    expect(text).toMatch(
      /^### Summary of 9 earlier messages\nOLD SUMMARY\n\n### User\nq\n\n### Tool results\nHEADm+\n\[\.\.\. \d+ characters cut for the summary \.\.\.\]\nm+TAIL\n/,
    );
    expect(text.length).toBeLessThanOrEqual(9000);
    // Too little room: the oldest go (never the earlier summary), with a line saying so.
    const tight = renderForSummary(messages, 6000);
    expect(tight).toMatch(
      /^### Summary of 9 earlier messages\nOLD SUMMARY\n\n\[2 messages left out here to fit; the summary need not cover them\]\n\n### User\nz+\n\n$/,
    );
  });
});
