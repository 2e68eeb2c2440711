// Agents as the seeds write them: Claude Code tool names everywhere, broken files named, the manual
// after permission rules, edits applied on the next turn, dry runs, blocked tasks.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { findAgent, loadAgents } from '../../src/personas/loadAgents.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { FileBackend } from '../../src/queue/fileBackend.js';
import { runTasks } from '../../src/queue/runTasks.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
let devx: string;
const put = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const env = () => ({ PATH: process.env.PATH, HOME: home });

beforeEach(() => {
  root = makeProject({}, { git: false });
  home = tempDir('devx-personas-home-');
  devx = path.join(home, '.devx');
});

describe('agent files', () => {
  it('an agent from the product brief (Claude Code tool names in .devx/agents) gets those tools, with no warning', () => {
    put(
      path.join(root, '.devx', 'agents', 'code-reviewer.md'),
      '---\nname: code-reviewer\ndescription: Reviews code\ntools: [Read, Grep, Glob, Bash]\n---\nReview.',
    );
    const l = loadAgents(root, home, devx);
    expect(l.agents.get('code-reviewer')!.tools).toEqual(['read_file', 'search_code', 'glob', 'run_command']);
    expect(l.warnings).toEqual([]);
  });

  it('an unknown tool name is a warning naming it and the valid ones', () => {
    put(path.join(root, '.devx', 'agents', 'x.md'), '---\nname: x\ndescription: d\ntools: [read_file, Frobnicate]\n---\n');
    const w = loadAgents(root, home, devx)
      .warnings.map((i) => i.message)
      .join('\n');
    expect(w).toMatch(/unknown tool "Frobnicate"; valid names are read_file, Read, .*search_code, Grep/);
  });

  it('a broken file is reported with its path and reason, never a fall-back to the other scope', () => {
    put(path.join(devx, 'agents', 'helper.md'), '---\nname: helper\ndescription: the user one\n---\nUser.');
    const broken = path.join(root, '.devx', 'agents', 'helper.md');
    put(broken, '---\nname: helper\ndescription: project one\nmemory: ./missing-memory.md\n---\nProject.');
    const l = loadAgents(root, home, devx);
    expect(() => findAgent(l, 'helper')).toThrow(`agent "helper" cannot be loaded: ${broken}:4: memory file not found`);
    put(path.join(root, '.devx', 'agents', 'a.md'), '---\nname: a\ndescription: d\n---\n@b.md');
    put(path.join(root, '.devx', 'agents', 'b.md'), '@a.md');
    expect(() => findAgent(loadAgents(root, home, devx), 'a')).toThrow(/agent "a" cannot be loaded: .*a\.md: .*cycle/);
    expect(() => findAgent(l, 'nobody')).toThrow(/no agent named "nobody". Known: .*\bhelper\b/);
  });

  it("the product brief's extension without its contextFileName file loads, with a warning", () => {
    put(path.join(root, '.gemini', 'extensions', 'coder.json'), JSON.stringify({ name: 'coder', prompt: 'You write code.', contextFileName: 'CODER.md' }));
    const l = loadAgents(root, home, devx);
    expect(l.agents.get('coder')!.prompt).toBe('You write code.');
    expect(l.warnings.map((w) => w.message).join('\n')).toMatch(/contextFileName not found: .*CODER\.md/);
  });
});

describe('agents at run time', () => {
  it('the manual lists only the tools the permission rules leave callable', async () => {
    put(path.join(devx, 'settings.json'), JSON.stringify({ permissions: { deny: ['spawn_gemini', 'Bash'] } }));
    const run = await AgentRun.create({ cwd: root, env: env(), backend: new ScriptedBackend([]) });
    expect(run.loopDeps.systemPrompt).toContain('### read_file');
    expect(run.loopDeps.systemPrompt).not.toContain('### spawn_gemini');
    expect(run.loopDeps.systemPrompt).not.toContain('### run_command');
    await run.dispose();
  });

  it('an edited agent file takes effect on the next turn', async () => {
    const file = path.join(root, '.devx', 'agents', 'writer.md');
    put(file, '---\nname: writer\ndescription: d\n---\nAlways answer in French.');
    const backend = new ScriptedBackend(['un', 'deux']);
    const run = await AgentRun.create({ cwd: root, env: env(), backend, persona: 'writer' });
    await run.prompt('hi');
    put(file, '---\nname: writer\ndescription: d\n---\nAlways answer in German.');
    await run.prompt('hi again');
    expect(backend.requests[0].systemPrompt).toContain('Always answer in French.');
    expect(backend.requests[1].systemPrompt).toContain('Always answer in German.');
    await run.dispose();
  });

  it('a dry run runs nothing and says what the policy would decide', async () => {
    const backend = new ScriptedBackend(['TOOL_CALL: write_file | path=x.txt | content=hi\nTOOL_CALL: run_command | cmd=curl http://example.com']);
    const run = await AgentRun.create({ cwd: root, env: env(), backend, dryRun: true });
    const ends: string[] = [];
    run.subscribe((e) => e.type === 'tool_end' && ends.push(e.outcome.content));
    const r = await run.prompt('go');
    expect(r.status).toBe('answered');
    expect(ends[0]).toMatch(/^\(dry run: not run; the policy would ask it \(write_file changes files\)\)$/);
    expect(ends[1]).toMatch(/^\(dry run: not run; the policy would deny it/);
    expect(fs.existsSync(path.join(root, 'x.txt'))).toBe(false);
    await run.dispose();
  });

  it('a queued task whose every call was refused ends blocked, with the refused calls listed', async () => {
    put(path.join(root, '.devx', 'agents', 'w.md'), '---\nname: w\ndescription: writes\n---\nWrite.');
    const queue = new FileBackend(root);
    const t = await queue.start({ agent: 'w', prompt: 'write a file' });
    const backend = new ScriptedBackend(['TOOL_CALL: write_file | path=out.txt | content=x', 'I could not write it.']);
    const [done] = await runTasks(queue, { all: false, parallel: 1, leaseMs: 60_000, run: { cwd: root, env: env(), backend } });
    expect(done.taskId).toBe(t.taskId);
    expect(done.status).toBe('blocked');
    expect(done.error).toMatch(
      /^every tool call was refused: write out\.txt \(1 lines\) \(denied: write_file writes out\.txt, outside what task task_\w+ may write .*\[scope:outside-write\]\)$/,
    );
    expect(done.failedCalls).toHaveLength(1);
    expect(done.attempts).toBe(1);
  });

  it("a killed devx's scratch folder is removed by the next start; a live one's is kept", async () => {
    const runDir = path.join(devx, 'run');
    const dead = path.join(runDir, '999999999-dead');
    const live = path.join(runDir, `${process.pid}-live`);
    for (const d of [dead, live]) put(path.join(d, 'scratch', 'x'), 'x');
    const run = await AgentRun.create({ cwd: root, env: env(), backend: new ScriptedBackend([]) });
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    await run.dispose();
  });
});
