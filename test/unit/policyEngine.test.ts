// The policy engine's own rules; the approval modes in a session (commands run) are in
// test/integration/policyEngine.test.ts.
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../helpers/policy.js';
import { builtinTools } from '../../src/tools/registry.js';
import { tempDir } from '../helpers/env.js';

const tool = (name: string) => builtinTools().find((t) => t.name === name)!;

describe('PolicyEngine', () => {
  it('rate-limits tool calls and commands per minute', async () => {
    let now = 0;
    const p = await makePolicy(tempDir(), { rateLimits: { toolCallsPerMinute: 5, commandsPerMinute: 2 }, now: () => now });
    const cmd = () => p.decideToolCall(tool('run_command'), { cmd: 'ls' });
    expect([cmd().decision, cmd().decision, cmd().rule]).toEqual(['allow', 'allow', 'rate-limit:commands']);
    expect(p.decideToolCall(tool('read_file'), { path: 'a' }).decision).toBe('allow');
    expect(p.decideToolCall(tool('read_file'), { path: 'a' }).decision).toBe('allow');
    expect(p.decideToolCall(tool('read_file'), { path: 'a' }).rule).toBe('rate-limit:tool-calls');
    now += 60_000;
    expect(cmd().decision).toBe('allow');
  });

  it('headless runs deny unknown commands; with a person they ask', async () => {
    const root = tempDir();
    expect((await makePolicy(root, { headless: true })).decideCommand('frobnicate').rule).toBe('command:unknown:headless');
    expect((await makePolicy(root, { headless: false })).decideCommand('frobnicate').decision).toBe('ask');
  });

  it('denies NUL and CR in commands and paths', async () => {
    const p = await makePolicy(tempDir());
    expect(p.decideCommand('ls\u0000; curl x').rule).toBe('command:control-chars');
    expect(p.decideCommand('ls\r\ncurl x').rule).toBe('command:control-chars');
    expect(p.decidePath('a\u0000b', 'read').decision).toBe('deny');
  });
});
