import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runTurn, type AgentEvent, type LoopDeps } from '../../src/core/loop.js';
import { ScriptedBackend, type ScriptedReply } from '../../src/providers/scripted.js';
import { BackendError } from '../../src/providers/types.js';
import { makePolicy } from '../helpers/policy.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { buildPrompt } from '../../src/core/buildPrompt.js';
import type { Message } from '../../src/core/messages.js';
import { tempDir } from '../helpers/env.js';
import { makeLoopDeps } from '../helpers/loopDeps.js';

let root: string;
let policy: PolicyEngine;

function makeDeps(replies: ScriptedReply[], extra: Partial<LoopDeps> = {}): { deps: LoopDeps; backend: ScriptedBackend } {
  const backend = new ScriptedBackend(replies);
  let clock = Date.parse('2026-01-01T00:00:00Z');
  return { backend, deps: makeLoopDeps(root, backend, policy, { now: () => new Date((clock += 1000)), ...extra }) };
}

async function turn(deps: LoopDeps, input: string, history: Message[] = [], signal = new AbortController().signal) {
  const events: AgentEvent[] = [];
  const result = await runTurn(deps, history, input, { signal, emit: (e) => events.push(e) });
  return { result, events };
}

beforeEach(async () => {
  root = tempDir('devx-loop-');
  policy = await makePolicy(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
});

describe('runTurn', () => {
  it('a near-miss call is not run; the model is told how to write it, the turn goes on, and the corrected call runs', async () => {
    const { deps, backend } = makeDeps(['Sure, reading it now: **TOOL_CALL: read_file | path=a.txt**', 'TOOL_CALL: read_file | path=a.txt', 'It says alpha.']);
    const { result, events } = await turn(deps, 'what is in a.txt');
    expect(result).toMatchObject({ status: 'answered', answer: 'It says alpha.', rounds: 3 });
    const ran = events.flatMap((e) => (e.type === 'tool_end' ? [e.outcome.tool] : []));
    expect(ran).toEqual(['read_file']);
    const feedback = backend.requests[1].prompt;
    expect(feedback).toMatch(/TOOL_RESULT: protocol \| status=error/);
    expect(feedback).toMatch(/nothing was run[\s\S]*Write it as:\nTOOL_CALL: read_file \| path=a\.txt/);
    expect(backend.requests[2].prompt).toContain('alpha');
  });

  it('answers directly when the reply has no calls', async () => {
    const { deps } = makeDeps(['Just an answer.']);
    const { result, events } = await turn(deps, 'hi');
    expect(result).toMatchObject({ status: 'answered', answer: 'Just an answer.', rounds: 1 });
    expect(result.added.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'message', 'model_request', 'model_response', 'message', 'assistant_text', 'turn_end']);
  });

  it('runs calls in order and feeds results back', async () => {
    const { deps, backend } = makeDeps(['TOOL_CALL: read_file | path=a.txt\nTOOL_CALL: write_file | path=b.txt | content=```\nbeta\n```', 'Done.']);
    const { result } = await turn(deps, 'copy');
    expect(result.status).toBe('answered');
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('beta\n');
    const second = backend.requests[1].prompt;
    expect(second.indexOf('TOOL_RESULT: read_file | status=ok')).toBeLessThan(second.indexOf('TOOL_RESULT: write_file | status=ok'));
    expect(second).toContain('alpha');
    expect(backend.requests[0].systemPrompt).toBe('SYSTEM');
  });

  it('sends parse errors, unknown tools and bad args back as error results, never crashing', async () => {
    const { deps, backend } = makeDeps(['TOOL_CALL: Bad-Name\nTOOL_CALL: frobnicate | x=1\nTOOL_CALL: read_file | path=a.txt | path=b', 'ok then']);
    const { result } = await turn(deps, 'go');
    expect(result.status).toBe('answered');
    const fed = backend.requests[1].prompt;
    expect(fed).toMatch(/TOOL_RESULT: protocol \| status=error \| line=1\n`+\ninvalid tool name/);
    expect(fed).toMatch(/TOOL_RESULT: frobnicate \| status=error\n`+\nunknown tool "frobnicate". Available tools: read_file/);
    expect(fed).toMatch(/TOOL_RESULT: read_file \| status=error \| line=3\n`+\nduplicate argument "path"/);
  });

  it('tells the model when its only call sat in a code block instead of ending the turn', async () => {
    const { deps, backend } = makeDeps(['```\nTOOL_CALL: read_file | path=a.txt\n```', 'TOOL_CALL: read_file | path=a.txt', 'done']);
    const { result } = await turn(deps, 'go');
    expect(result.rounds).toBe(3);
    expect(backend.requests[1].prompt).toMatch(/warning: line 2: a TOOL_CALL line inside a code block was ignored/);
  });

  it('discards hallucinated results from history and warns once', async () => {
    const { deps, backend } = makeDeps(['TOOL_CALL: read_file | path=a.txt\nTOOL_RESULT: read_file | status=ok\n```\nfake\n```', 'done']);
    const { result } = await turn(deps, 'go');
    const assistant = result.added.find((m) => m.role === 'assistant')!;
    expect(assistant.content).toBe('TOOL_CALL: read_file | path=a.txt');
    expect(backend.requests[1].prompt).not.toContain('fake');
    expect(backend.requests[1].prompt.match(/discarded/g)).toHaveLength(1);
  });

  it('stops after maxRounds with a clear message', async () => {
    const { deps } = makeDeps(Array(10).fill('TOOL_CALL: read_file | path=a.txt'), { maxRounds: 3 });
    const { result } = await turn(deps, 'loop');
    expect(result.status).toBe('max_rounds');
    expect(result.error?.message).toMatch(/Stopped after 3 tool rounds/);
    expect(result.added.at(-1)?.role).toBe('devx');
  });

  it('ends the turn when the same refused or failing call comes a third time, saying so', async () => {
    const { deps, backend } = makeDeps([...Array(10).fill('TOOL_CALL: read_file | path=.env'), 'never asked']);
    const { result } = await turn(deps, 'read the secrets');
    expect(result.status).toBe('error');
    expect(result.error?.kind).toBe('repeated_call');
    expect(result.error?.message).toMatch(/the same call 3 times and it was refused or failed each time \(read \.env\)/);
    expect(backend.requests).toHaveLength(3);
    expect(result.added.at(-1)).toMatchObject({ role: 'devx' });
    // Different calls that fail do not count together.
    const other = makeDeps(['TOOL_CALL: read_file | path=x1', 'TOOL_CALL: read_file | path=x2', 'TOOL_CALL: read_file | path=x3', 'done']);
    expect((await turn(other.deps, 'go')).result.status).toBe('answered');
  });

  it('reports a backend failure as a turn error and records it', async () => {
    const { deps } = makeDeps([new BackendError('auth', 'not logged in')]);
    const { result } = await turn(deps, 'hi');
    expect(result).toMatchObject({ status: 'error', error: { kind: 'auth', message: 'not logged in' } });
    expect(result.added.map((m) => m.role)).toEqual(['user', 'devx']);
  });

  it('cancels between calls when the signal fires', async () => {
    const controller = new AbortController();
    const { deps } = makeDeps(['TOOL_CALL: read_file | path=a.txt\nTOOL_CALL: write_file | path=c.txt | content=x']);
    deps.approve = async () => 'yes';
    const origExecute = deps.tools.get('read_file')!.execute;
    deps.tools.set('read_file', {
      ...deps.tools.get('read_file')!,
      execute: async (ctx, args) => {
        controller.abort();
        return origExecute(ctx, args as never);
      },
    });
    const { result } = await turn(deps, 'go', [], controller.signal);
    expect(result.status).toBe('cancelled');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
  });

  it('dry runs report calls without executing them', async () => {
    const { deps } = makeDeps(['TOOL_CALL: write_file | path=d.txt | content=x'], { dryRun: true });
    const { events } = await turn(deps, 'go');
    expect(events.some((e) => e.type === 'tool_start' && e.tool === 'write_file')).toBe(true);
    expect(fs.existsSync(path.join(root, 'd.txt'))).toBe(false);
  });
});

describe('buildPrompt (context budget)', () => {
  const msg = (role: Message['role'], content: string): Message => ({ role, content, at: '2026-01-01T00:00:00Z' });

  it('includes memory, handoff and the whole history when it fits', () => {
    const p = buildPrompt({ memory: 'MEM', handoff: 'HAND', messages: [msg('user', 'q1'), msg('assistant', 'a1')], turnStart: 1, budgetChars: 100_000 });
    expect(p.text).toMatch(/MEMORY.md\)\nMEM[\s\S]*HANDOFF.md\)\nHAND[\s\S]*## User\nq1[\s\S]*## Assistant \(you\)\na1/);
    expect(p.elidedMessages + p.elidedToolResults).toBe(0);
  });

  it('elides old tool results first, then the oldest turns, with notes', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 20; i++)
      messages.push(
        msg('user', `question ${i}`),
        msg('assistant', `TOOL_CALL: read_file | path=${i}`),
        msg('tool', `result ${i} ` + 'x'.repeat(5000)),
        msg('assistant', `answer ${i}`),
      );
    const p = buildPrompt({ messages, turnStart: 76, budgetChars: 30_000 });
    expect(p.text.length).toBeLessThanOrEqual(30_000);
    expect(p.elidedToolResults).toBeGreaterThan(0);
    expect(p.text).toContain('older tool results were elided');
    expect(p.text).toContain('question 19');
    expect(p.text).toContain('result 19');
    const smaller = buildPrompt({ messages, turnStart: 76, budgetChars: 8_000 });
    expect(smaller.elidedMessages).toBeGreaterThan(0);
    expect(smaller.text).toMatch(/\d+ earlier messages were elided/);
    expect(smaller.text).not.toContain('question 0\n');
    expect(smaller.text.length).toBeLessThanOrEqual(8_000);
  });

  it('stays bounded when the current turn alone is too big', () => {
    const messages = [msg('user', 'do it'), ...Array.from({ length: 30 }, (_, i) => msg('tool', `r${i} ` + 'y'.repeat(4000)))];
    const p = buildPrompt({ messages, turnStart: 0, budgetChars: 20_000 });
    expect(p.text.length).toBeLessThanOrEqual(20_000);
    expect(p.text).toContain('do it');
    expect(p.text).toContain('r29');
  });
});
