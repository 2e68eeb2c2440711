// append_file (whole lines, never truncates, same sandbox and policy as write_file) and the agent
// tool (agent:<name> entries, the allowlist of callable agents, the depth limit), plus the builtin
// agent scope that ships the clarification roles.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runToolCall, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import { toolDeps } from '../helpers/toolDeps.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { loadAgents } from '../../src/personas/loadAgents.js';
import { applyAgent } from '../../src/personas/applyAgent.js';
import { suggestAgent } from '../../src/personas/suggestAgent.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
let policy: PolicyEngine;
let asked: string[];

const put = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

const deps = (ctx: Partial<ToolCallDeps['ctx']> = {}): ToolCallDeps =>
  toolDeps(root, policy, {
    ctx,
    approve: (req) => {
      asked.push(req.preview ?? req.summary);
      return 'yes';
    },
  });
const call = (tool: string, args: Record<string, string>, d = deps()) => runToolCall({ tool, args }, d);

beforeEach(async () => {
  root = makeProject({}, { git: false });
  home = tempDir('devx-append-home-');
  policy = await makePolicy(root);
  asked = [];
});

describe('append_file', () => {
  it('creates a missing file (and folders), then appends whole lines without touching what is there', async () => {
    const r1 = await call('append_file', { path: 'tasks/t/changelog.md', content: '- first' });
    expect(r1).toMatchObject({ status: 'ok', content: 'created tasks/t/changelog.md: 1 line(s) added, now 8 bytes' });
    const r2 = await call('append_file', { path: 'tasks/t/changelog.md', content: '- second\n- third\n' });
    expect(r2.status).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'tasks/t/changelog.md'), 'utf8')).toBe('- first\n- second\n- third\n');
  });

  it('starts on a fresh line when the file does not end with a newline, and never truncates', async () => {
    const big = 'x'.repeat(10_000);
    put(path.join(root, 'log.md'), `${big}\nlast line without newline`);
    await call('append_file', { path: 'log.md', content: 'added' });
    const after = fs.readFileSync(path.join(root, 'log.md'), 'utf8');
    expect(after.length).toBe(big.length + '\nlast line without newline\nadded\n'.length);
    expect(after.endsWith('x\nlast line without newline\nadded\n')).toBe(true);
  });

  it('asks like write_file, showing the lines it adds, and obeys the same sandbox', async () => {
    put(path.join(root, 'a.md'), 'one\n');
    await call('append_file', { path: 'a.md', content: 'two' });
    expect(asked).toEqual(['append to a.md: 1 line(s)\n+two']);
    const outside = await call('append_file', { path: '../escape.md', content: 'x' });
    expect(outside.status).toBe('error');
    expect(outside.content).toMatch(/denied by policy/);
    expect(fs.existsSync(path.join(root, '..', 'escape.md'))).toBe(false);
    const secret = await call('append_file', { path: '.env', content: 'A=1' });
    expect(secret.content).toMatch(/denied by policy/);
    const dir = await call('append_file', { path: '.', content: 'x' });
    expect(dir.status).toBe('error');
    expect((await call('append_file', { path: 'a.md', content: '' })).content).toMatch(/give the line\(s\) to append/);
  });
});

describe('the agent tool', () => {
  const runAgent = async (name: string, input: string) => ({ answer: `${name} did: ${input}`, status: 'answered' });

  it('calls only agents listed as agent:<name>; others get an error naming the allowed ones', async () => {
    const ok = await call('agent', { name: 'changelog', input: 'note it' }, deps({ runAgent, callableAgents: ['changelog'] }));
    expect(ok).toMatchObject({ status: 'ok', content: 'changelog did: note it' });
    const no = await call('agent', { name: 'deployer', input: 'ship it' }, deps({ runAgent, callableAgents: ['changelog', 'helper'] }));
    expect(no).toMatchObject({ status: 'error', content: 'you may not call the agent "deployer". You may call: changelog, helper.' });
    const none = await call('agent', { name: 'changelog', input: 'x' }, deps({ runAgent }));
    expect(none.content).toMatch(/no agents are callable here: .* agent:<name>/);
  });

  it('is refused inside an agent called as a tool (depth limit 1)', async () => {
    const r = await call('agent', { name: 'changelog', input: 'x' }, deps({ callableAgents: ['changelog'] }));
    expect(r).toMatchObject({ status: 'error' });
    expect(r.content).toMatch(/cannot call further agents \(depth limit 1\)/);
  });

  it('loadAgents keeps agent:<name> entries, warns about an unknown callee, rejects a bad name', () => {
    const dir = path.join(root, '.devx', 'agents');
    put(path.join(dir, 'boss.md'), '---\nname: boss\ndescription: b\ntools: [read_file, "agent:helper", "agent:ghost"]\n---\nBoss.');
    put(path.join(dir, 'helper.md'), '---\nname: helper\ndescription: h\ntools: [append_file]\n---\nHelp.');
    put(path.join(dir, 'bad.md'), '---\nname: bad\ndescription: b\ntools: ["agent:no spaces"]\n---\n');
    const l = loadAgents(root, home, path.join(home, '.devx'));
    expect(l.agents.get('boss')!.tools).toEqual(['read_file', 'agent:helper', 'agent:ghost']);
    expect(l.warnings.map((w) => w.message)).toEqual(['"agent:ghost": there is no agent named "ghost"; a call to it will fail']);
    expect(l.errors.map((e) => e.message)).toEqual([expect.stringMatching(/"agent:no spaces" in tools must be agent:<name>/)]);
  });

  it('is offered only to an agent that lists another agent, which the role section names', async () => {
    const backend = new ScriptedBackend([]);
    const run = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend });
    expect(run.loopDeps.systemPrompt).not.toContain('### agent\n');
    put(path.join(root, '.devx', 'agents', 'boss.md'), '---\nname: boss\ndescription: b\ntools: [read_file, "agent:helper"]\n---\nBoss.');
    put(path.join(root, '.devx', 'agents', 'free.md'), '---\nname: free\ndescription: inherits every tool\n---\nFree.');
    const l = loadAgents(root, home, path.join(home, '.devx'));
    const boss = applyAgent(run.loopDeps, run.agent.offeredTools, root, l.agents.get('boss')!);
    expect(boss.systemPrompt).toContain('### agent\n');
    expect(boss.systemPrompt).toContain('You may call these agents with the agent tool: helper.');
    expect(boss.ctx.callableAgents).toEqual(['helper']);
    expect([...boss.allowedTools!.names].sort()).toEqual(['agent', 'read_file']);
    const free = applyAgent(run.loopDeps, run.agent.offeredTools, root, l.agents.get('free')!);
    expect(free.systemPrompt).not.toContain('### agent\n');
    await run.dispose();
  });

  it('runs the callee with its own prompt and model; its calls cannot reach further agents', async () => {
    put(path.join(root, '.devx', 'agents', 'boss.md'), '---\nname: boss\ndescription: b\ntools: ["agent:scribe"]\nmodel: big-model\n---\nBoss.');
    put(
      path.join(root, '.devx', 'agents', 'scribe.md'),
      '---\nname: scribe\ndescription: s\ntools: [append_file, "agent:boss"]\nmodel: small-model\n---\nScribe.',
    );
    const backend = new ScriptedBackend([
      'TOOL_CALL: agent | name=scribe | input=write "hello" to notes.md',
      'TOOL_CALL: append_file | path=notes.md | content=hello\nTOOL_CALL: agent | name=boss | input=loop',
      'Appended.',
      'Done.',
    ]);
    const run = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend, yes: true, persona: 'boss' });
    const r = await run.prompt('go');
    expect(r).toMatchObject({ status: 'answered', answer: 'Done.' });
    expect(backend.requests.map((q) => q.model)).toEqual(['big-model', 'small-model', 'small-model', 'big-model']);
    expect(backend.requests[1].systemPrompt).toContain('# Your role: the scribe agent');
    expect(backend.requests[1].prompt).toContain('write "hello" to notes.md');
    expect(backend.requests[1].prompt).not.toContain('go');
    // The callee's own agent:boss entry does not reach past the depth limit: the tool is not even offered.
    expect(backend.requests[1].systemPrompt).not.toContain('### agent\n');
    expect(backend.requests[1].systemPrompt).not.toContain('You may call these agents');
    expect(backend.requests[2].prompt).toMatch(
      /TOOL_RESULT: agent \| status=error\n`+\nagent is not available to the scribe agent\. It may use: append_file\./,
    );
    expect(backend.requests[3].prompt).toMatch(/TOOL_RESULT: agent \| status=ok \| agent=scribe \| status=answered\n`+\nAppended\./);
    expect(fs.readFileSync(path.join(root, 'notes.md'), 'utf8')).toBe('hello\n');
    await run.dispose();
  });
});

describe('builtin agents', () => {
  it('ship the clarification roles with their tools and models; a user or project file overrides them; never suggested', () => {
    const l = loadAgents(root, home, path.join(home, '.devx'));
    expect(l.errors).toEqual([]);
    expect(l.agents.get('changelog')).toMatchObject({ scope: 'builtin', tools: ['append_file'], model: 'gemini-2.5-flash' });
    expect(l.agents.get('context-researcher')).toMatchObject({
      scope: 'builtin',
      tools: ['read_file', 'list_directory', 'write_file', 'agent:changelog'],
      model: 'gemini-2.5-flash',
    });
    expect(l.agents.get('qna')).toMatchObject({ scope: 'builtin', tools: ['read_file', 'write_file', 'agent:changelog'], model: 'gemini-2.5-pro' });
    put(path.join(home, '.devx', 'agents', 'qna.md'), '---\nname: qna\ndescription: mine\nmodel: gemini-2.5-flash\n---\nMine.');
    const over = loadAgents(root, home, path.join(home, '.devx'));
    expect(over.agents.get('qna')).toMatchObject({ scope: 'user', model: 'gemini-2.5-flash' });
    expect(over.overridden.map((a) => `${a.name}:${a.scope}`)).toEqual(['qna:builtin']);
    expect(suggestAgent('append an entry to the changelog', [...l.agents.values()])).toBeNull();
  });
});
