// Approval modes in a session: a real agent (scripted model) whose approved commands run.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runToolCall } from '../../src/tools/runToolCall.js';
import { createAgent } from '../../src/runtime/createAgent.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { makeProject, tempDir } from '../helpers/env.js';

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
    const w = await runToolCall({ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }, agent.deps);
    const c = await runToolCall({ tool: 'run_command', args: { cmd: 'touch x' } }, agent.deps);
    // 'auto': the mode approved it, not a person (it runs held to the policy's claim).
    expect([w.answer, c.answer]).toEqual(['auto', 'no']);
    expect(asked).toEqual(['run_command']);
    await agent.dispose();
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
  });

  it('"always" is remembered for the exact command for the rest of the session', async () => {
    const { agent, root, asked } = await agentWith('default', ['always', 'no']);
    const run = (cmd: string) => runToolCall({ tool: 'run_command', args: { cmd } }, agent.deps);
    expect((await run('touch x')).answer).toBe('always');
    fs.rmSync(path.join(root, 'x'));
    expect((await run('touch x')).answer).toBe('yes');
    expect(fs.existsSync(path.join(root, 'x'))).toBe(true);
    expect((await run('touch y')).answer).toBe('no');
    expect(asked).toEqual(['run_command', 'run_command']);
    await agent.dispose();
  });
});
