// Agent files: every error in one is reported, with its file and line, by agent list
// and by the command that loads the agent; a memory file kept beside its agent is not an agent;
// agent init scaffolds the seed's sections; /agent create and /agent init work inside the REPL (in a
// real terminal), and Ctrl-C stops the wizard without ending the session.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

const agent = (front: string, body = 'You help.') => `---\n${front}\n---\n${body}\n`;

describe('agent files', () => {
  it('a bad provider, a typo in a field and broken YAML are reported with file and line by agent list and by agent run; a memory file beside its agent is not an agent', async () => {
    const project = makeProject({
      '.devx/agents/oai.md': agent('name: oai\ndescription: runs on mistral\nprovider: mistral'),
      '.devx/agents/typo.md': agent('name: typo\ndescription: a typo\ntools: [read_file]\nprovider: gemnii'),
      '.devx/agents/badtools.md': agent('name: badtools\ndescription: tools as a number\ntools: 3'),
      '.devx/agents/yaml.md': agent('name: yaml\ndescription: [unclosed'),
      '.devx/agents/keeper.md': agent('name: keeper\ndescription: remembers\nmemory: agent-memory.md'),
      '.devx/agents/agent-memory.md': '# What keeper knows\n- The build runs with make.\n',
    });
    const env = fakeEnv(fake, home);
    const list = await runDevx(['agent', 'list'], { cwd: project, env });
    expect(list.code).toBe(1);
    const dir = path.join(project, '.devx', 'agents');
    expect(list.stderr).toContain(`error: ${dir}/oai.md:4: "provider: mistral" is not a provider devx has (gemini, claude, codex (or openai))\n`);
    expect(list.stderr).toContain(`error: ${dir}/typo.md:5: "provider: gemnii" is not a provider devx has (gemini, claude, codex (or openai))\n`);
    expect(list.stderr).toContain(`error: ${dir}/badtools.md:4: "tools" must be a list of tool names or a comma-separated string\n`);
    expect(list.stderr).toMatch(new RegExp(`error: ${dir}/yaml\\.md:\\d+: front-matter is not valid YAML: `));
    expect(list.stderr).not.toContain('agent-memory.md');
    expect(list.stdout).toMatch(/^keeper\s+project/m);
    expect(list.stdout).not.toMatch(/^(oai|typo)\s/m);
    const json = JSON.parse((await runDevx(['agent', 'list', '--json'], { cwd: project, env })).stdout);
    expect(json.errors).toContainEqual({ file: `${dir}/oai.md`, line: 4, message: expect.stringContaining('mistral') });

    // The command that loads it says the same, and no model is called.
    const run = await runDevx(['agent', 'run', 'oai', 'hello'], { cwd: project, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`agent "oai" cannot be loaded: ${dir}/oai.md:4: "provider: mistral" is not a provider devx has`);
    expect(run.stderr).not.toContain('Cannot read properties');
    const start = await runDevx(['agent', 'start', 'typo', 'hello'], { cwd: project, env });
    expect(start.stderr).toContain(`${dir}/typo.md:5: "provider: gemnii"`);
    expect(fake.modelCalls).toHaveLength(0);

    // The memory file is in the agent's prompt.
    fake.push((req) => {
      expect(req.systemText).toContain('# Memory (agent-memory.md)\n# What keeper knows\n- The build runs with make.');
      return { text: 'make' };
    });
    const kept = await runDevx(['agent', 'run', 'keeper', 'how do I build?'], { cwd: project, env });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toBe('make\n');
  }, 60_000);

  it('agent init scaffolds the seed sections, and the agent loads', async () => {
    const project = makeProject({});
    const env = fakeEnv(fake, home);
    const r = await runDevx(['agent', 'init', 'triage', '--description', 'Sorts new bug reports'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(project, '.devx', 'agents', 'triage.md');
    expect(r.stdout).toBe(`created ${file}: fill in its sections (Responsibilities, When to use, Tooling, Guardrails, Example prompts)\n`);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.match(/^## .*$/gm)).toEqual(['## Responsibilities', '## When to use', '## Tooling', '## Guardrails', '## Example prompts']);
    const list = await runDevx(['agent', 'list'], { cwd: project, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toBe('');
    expect(list.stdout).toMatch(/^triage\s+project\s+devx\s+Sorts new bug reports$/m);
    const again = await runDevx(['agent', 'init', 'triage'], { cwd: project, env });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already exists');
  }, 30_000);

  it('/agent create and /agent init inside the REPL ask through its input; Ctrl-C stops the wizard and the session goes on', async () => {
    const project = makeProject({});
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('/agent create\r');
    await s.waitFor(/Template \(code-reviewer, test-runner, docs-writer, release-bot\) \[code-reviewer\]: $/);
    s.type('test-runner\r');
    await s.waitFor(/Name \[test-runner\]: $/);
    s.type('tests\r');
    await s.waitFor(/Scope \(project or user\) \[project\]: $/);
    s.type('\r');
    await s.waitFor(/Description \[.*\]: $/);
    s.type('Runs the tests\r');
    await s.waitFor(/created .*tests\.md\n/);
    expect(fs.readFileSync(path.join(project, '.devx/agents/tests.md'), 'utf8')).toMatch(/^---\nname: tests\ndescription: Runs the tests\n/);

    // Ctrl-C in the middle: nothing written, the REPL still answers.
    s.type('/agent init\r');
    await s.waitFor(/Name: $/);
    s.type('\x03');
    await s.waitFor(/agent init stopped; nothing was written/);
    s.type('/agent init helper --description "Helps out"\r');
    await s.waitFor(/created .*helper\.md: fill in its sections/);
    s.type('/agent list\r');
    await s.waitFor(/^helper\s+project\s+devx\s+Helps out$/m);
    expect(s.screen()).toMatch(/^tests\s+project\s+devx\s+Runs the tests$/m);
    s.type('/exit\r');
    await new Promise((r) => s.child.on('close', r));
    expect(fake.modelCalls).toHaveLength(0);
  }, 60_000);
});
