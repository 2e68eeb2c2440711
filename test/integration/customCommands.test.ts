// Custom commands' injections, run for real (test/unit/customCommands.test.ts has their loading and
// expansion): `!{cmd}` and `@{file}` go through the policy; judged by effects: what reaches the model, what
// the policy refused, what ran (git status in a real repository, the audit log).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ModelRequest } from '../../src/providers/types.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
const runs: AgentRun[] = [];
beforeEach(() => {
  root = makeProject({ 'README.md': 'hello from the readme\n' });
  home = tempDir('devx-cmd-home-');
});
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});

const put = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

async function session(replies = ['ok', 'ok', 'ok']) {
  const prompts: string[] = [];
  const backend = new ScriptedBackend(replies.map((t) => (req: ModelRequest) => (prompts.push(req.prompt), t)));
  const r = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend, history: 'project', prompt: async () => 'yes' });
  runs.push(r);
  return { r, prompts };
}

describe('running', () => {
  it('injections go through the policy: allowed output and files reach the model; a denied one stops the command before any model call', async () => {
    put(path.join(home, '.devx', 'commands', 'ctx.toml'), 'prompt = """Context:\n!{git status --short}\n@{README.md}\nTask: {{args}}"""\n');
    put(path.join(home, '.devx', 'commands', 'steal.toml'), 'prompt = "Key: !{cat ~/.ssh/id_rsa}"\n');
    put(path.join(home, '.devx', 'commands', 'out.toml'), 'prompt = "Other: @{../../etc/passwd}"\n');
    put(path.join(home, '.ssh', 'id_rsa'), 'SECRET-KEY');
    fs.writeFileSync(path.join(root, 'new.txt'), 'x');
    const { r, prompts } = await session();
    const ok = await r.promptCommand('/ctx tidy up');
    expect(ok?.status).toBe('answered');
    expect(prompts[0]).toMatch(/Context:\n\?\? new\.txt\n/);
    expect(prompts[0]).toMatch(/hello from the readme/);
    expect(prompts[0]).toMatch(/Task: tidy up/);
    const steal = await r.promptCommand('/steal');
    expect(steal?.status).toBe('error');
    expect(steal?.error?.message).toMatch(/\/steal: its command `cat ~\/\.ssh\/id_rsa` was not used: denied by policy/);
    const out = await r.promptCommand('/out');
    expect(out?.error?.message).toMatch(/\/out: its file \.\.\/\.\.\/etc\/passwd was not used/);
    expect(prompts).toHaveLength(1);
    expect(prompts.join('')).not.toMatch(/SECRET-KEY|root:x:/);
    // Both were recorded as calls in the audit log.
    const audit = fs.readFileSync(path.join(root, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"tool":"run_command".*"cmd":"cat ~\/\.ssh\/id_rsa".*"decision":"deny"/);
  });
});
