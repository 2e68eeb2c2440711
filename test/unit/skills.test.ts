// Agent Skills from .devx/skills, .claude/skills and .gemini/skills (home and project),
// through a real AgentRun: names and descriptions in the system prompt, the body and files read with the
// skill tool, nothing outside the skill's folder, a project's skills only once trusted.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import type { AgentEvent } from '../../src/core/loop.js';
import { setTrusted } from '../../src/config/trust.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
const runs: AgentRun[] = [];
beforeEach(() => {
  root = makeProject({ 'README.md': 'x\n' }, { git: false });
  home = tempDir('devx-skills-home-');
});
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});
const put = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

async function session(replies: string[]) {
  const backend = new ScriptedBackend(replies);
  const r = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend, history: 'none', prompt: async () => 'yes' });
  runs.push(r);
  const events: AgentEvent[] = [];
  r.subscribe((e) => events.push(e));
  return { r, backend, events };
}
const results = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'tool_end' ? [e.outcome] : []));

describe('skills', () => {
  it('a user skill is offered by name and description, and its body and files are read on request; nothing outside its folder', async () => {
    put(path.join(home, '.claude', 'skills', 'pdf', 'SKILL.md'), '---\nname: pdf\ndescription: Fill in and read PDF forms\n---\n# PDF\nUse pdftotext first.\n');
    put(path.join(home, '.claude', 'skills', 'pdf', 'reference.md'), 'The forms reference.\n');
    put(path.join(home, 'secret.txt'), 'SECRET');
    fs.symlinkSync(path.join(home, 'secret.txt'), path.join(home, '.claude', 'skills', 'pdf', 'leak.md'));
    const { r, backend, events } = await session([
      'TOOL_CALL: skill | name=pdf',
      'TOOL_CALL: skill | name=pdf | file=reference.md',
      'TOOL_CALL: skill | name=pdf | file=../../../secret.txt',
      'TOOL_CALL: skill | name=pdf | file=leak.md',
      'done',
    ]);
    await r.prompt('fill the form');
    expect(backend.requests[0].systemPrompt).toMatch(/- pdf: Fill in and read PDF forms/);
    const [body, ref, up, link] = results(events);
    expect(body.content).toMatch(/^# PDF\nUse pdftotext first\.\n\n\[files of this skill \(read with file=\): reference\.md\]/);
    expect(body.content).not.toMatch(/description:/);
    expect(ref.content).toBe('The forms reference.\n');
    expect(up.status).toBe('error');
    expect(link.status).toBe('error');
    expect(link.content).toMatch(/outside the skill's folder/);
    expect(JSON.stringify(backend.requests)).not.toMatch(/SECRET/);
  });

  it("a project's skills wait for trust; a broken SKILL.md is named and the others load", async () => {
    put(path.join(root, '.gemini', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy the app\n---\nRun make deploy.');
    put(path.join(home, '.devx', 'skills', 'broken', 'SKILL.md'), 'no front-matter');
    const first = await session(['ok']);
    expect(first.r.agent.tools.some((t) => t.name === 'skill')).toBe(false);
    expect(first.r.agent.warnings.join('\n')).toMatch(/this project has skills \(\.gemini\/skills\/deploy\/SKILL\.md\)/);
    expect(first.r.agent.warnings.join('\n')).toMatch(/skill .*broken\/SKILL\.md was not loaded: missing YAML front-matter/);
    setTrusted(path.join(home, '.devx'), root, true);
    const second = await session(['ok']);
    await second.r.prompt('hi');
    expect(second.backend.requests[0].systemPrompt).toMatch(/- deploy: Deploy the app/);
  });
});
