import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../helpers/policy.js';
import { builtinTools } from '../../src/tools/registry.js';
import { createAgent } from '../../src/runtime/createAgent.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { makeProject, tempDir } from '../helpers/env.js';

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

describe('approval modes in a session', () => {
  async function agentWith(mode: 'default' | 'auto-edit' | 'yolo', answers: string[]) {
    const root = makeProject({ 'a.txt': 'a\n' });
    const asked: string[] = [];
    const agent = await createAgent({
      cwd: root,
      env: { PATH: process.env.PATH, HOME: tempDir() },
      approvalMode: mode,
      prompt: async (req) => {
        asked.push(req.tool);
        return (answers.shift() as 'yes' | 'no') ?? 'no';
      },
      backend: new ScriptedBackend([]),
    });
    return { agent, root, asked };
  }

  it('auto-edit approves edits but still asks for commands', async () => {
    const { agent, root, asked } = await agentWith('auto-edit', ['no']);
    const w = await agent.deps.approve({ tool: 'write_file', args: { path: 'b.txt' }, decision: { decision: 'ask', reason: '', rule: 'tool:write' } });
    const c = await agent.deps.approve({
      tool: 'run_command',
      args: { cmd: 'touch x' },
      decision: { decision: 'ask', reason: '', rule: 'command:write:touch' },
    });
    // 'auto': the mode approved it, not a person (it runs held to the policy's claim).
    expect([w, c]).toEqual(['auto', 'no']);
    expect(asked).toEqual(['run_command']);
    agent.dispose();
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
  });

  it('"always" is remembered for the exact command for the rest of the session', async () => {
    const { agent, asked } = await agentWith('default', ['always']);
    const req = { tool: 'run_command', args: { cmd: 'touch x' }, decision: { decision: 'ask' as const, reason: '', rule: 'r' } };
    expect(await agent.deps.approve(req)).toBe('always');
    expect(await agent.deps.approve(req)).toBe('yes');
    expect(await agent.deps.approve({ ...req, args: { cmd: 'touch y' } })).toBe('no');
    expect(asked).toEqual(['run_command', 'run_command']);
    agent.dispose();
  });
});
