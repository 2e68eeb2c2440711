import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadAgents } from '../../src/personas/loadAgents.js';
import { setTrusted } from '../../src/config/trust.js';
import { applyAgent } from '../../src/personas/applyAgent.js';
import { suggestAgent } from '../../src/personas/suggestAgent.js';
import { parseChain } from '../../src/cli/commands/agent.js';
import { runTurn } from '../../src/core/loop.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { createAgent } from '../../src/runtime/createAgent.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
let devx: string;

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

beforeEach(() => {
  root = makeProject({}, { git: false });
  home = tempDir('devx-agents-home-');
  devx = path.join(home, '.devx');
});

describe('loading agent definitions', () => {
  it('loads all four formats, with project over user precedence', () => {
    put(path.join(devx, 'agents', 'researcher.md'), '---\nname: researcher\ndescription: user researcher\n---\nUser body');
    put(path.join(devx, 'agents', 'planner.md'), '---\nname: planner\ndescription: plans work\nmodel: gemini-2.5-flash\n---\nPlan carefully.');
    put(
      path.join(root, '.devx', 'agents', 'researcher.md'),
      '---\nname: researcher\ndescription: project researcher\ntools: [read_file, search_code]\n---\nProject body',
    );
    put(
      path.join(root, '.claude', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Claude reviewer\ntools: Read, Grep, Glob, Bash, WebFetch, WebSearch\nmodel: sonnet\ncolor: blue\n---\nReview things.',
    );
    put(
      path.join(root, '.gemini', 'extensions', 'coder-agent.json'),
      JSON.stringify({ name: 'coder-agent', prompt: 'You write code.', contextFileName: 'CODER.md' }),
    );
    put(path.join(root, '.gemini', 'extensions', 'CODER.md'), 'Prefer small functions.');
    const l = loadAgents(root, home, devx);
    const own = (m: typeof l.agents) => [...m.values()].filter((a) => a.scope !== 'builtin').map((a) => a.name);
    expect(own(l.agents).sort()).toEqual(['coder-agent', 'planner', 'researcher', 'reviewer']);
    expect(l.agents.get('researcher')).toMatchObject({
      scope: 'project',
      format: 'devx',
      description: 'project researcher',
      tools: ['read_file', 'search_code'],
      prompt: 'Project body',
    });
    expect(l.overridden.map((o) => `${o.name}:${o.scope}`)).toEqual(['researcher:builtin', 'researcher:user']);
    expect(l.agents.get('planner')).toMatchObject({ scope: 'user', model: 'gemini-2.5-flash' });
    const reviewer = l.agents.get('reviewer')!;
    expect(reviewer.tools).toEqual(['read_file', 'search_code', 'glob', 'run_command', 'web_fetch']);
    // A Claude Code agent runs on Claude with its own model, with no warning about it.
    expect([reviewer.provider, reviewer.model]).toEqual(['claude', 'sonnet']);
    expect(l.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/no equivalent of Claude Code's WebSearch/)]);
    expect(l.agents.get('coder-agent')!.prompt).toBe('You write code.\n\nPrefer small functions.');
    expect(l.errors).toEqual([]);
  });

  it('reports broken files with path and reason and still loads the others; unknown keys warn', () => {
    put(path.join(root, '.devx', 'agents', 'good.md'), '---\nname: good\ndescription: fine\nflavour: mint\n---\nok');
    put(path.join(root, '.devx', 'agents', 'nofm.md'), 'just text');
    put(path.join(root, '.devx', 'agents', 'noname.md'), '---\ndescription: x\n---\n');
    put(path.join(root, '.devx', 'agents', 'badyaml.md'), '---\nname: [unclosed\n---\n');
    put(path.join(root, '.devx', 'agents', 'nodesc.md'), '---\nname: nodesc\n---\n');
    const l = loadAgents(root, home, devx);
    expect([...l.agents.values()].filter((a) => a.scope !== 'builtin').map((a) => a.name)).toEqual(['good']);
    const byFile = Object.fromEntries(l.errors.map((e) => [path.basename(e.file), e.message]));
    expect(byFile['nofm.md']).toMatch(/missing YAML front-matter/);
    expect(byFile['noname.md']).toMatch(/"name" is required/);
    expect(byFile['nodesc.md']).toMatch(/"description" is required/);
    expect(byFile['badyaml.md']).toBeDefined();
    expect(l.warnings).toEqual([{ file: path.join(root, '.devx', 'agents', 'good.md'), line: 4, message: 'unknown key "flavour" is ignored' }]);
  });

  it("names an unknown key's line by its text: a key that reads as a pattern is neither a pattern nor a hang", () => {
    // As a regular expression, this key backtracks for ages on the line of x's below it (a repository's file, before trust).
    const evil = '(x+x+)+y';
    put(path.join(root, '.devx', 'agents', 'evil.md'), `---\nname: evil\ndescription: d\n"${evil}": 1\n${'x'.repeat(40)}: 2\na.b: 3\n---\nok`);
    const l = loadAgents(root, home, devx);
    expect(l.agents.has('evil')).toBe(true);
    const lines = Object.fromEntries(l.warnings.map((w) => [w.message, w.line]));
    expect(lines[`unknown key "${'x'.repeat(40)}" is ignored`]).toBe(5);
    expect(lines['unknown key "a.b" is ignored']).toBe(6);
  });

  it('resolves @imports relative to the file and ~, appends the memory file, and names an import cycle', () => {
    put(path.join(root, '.devx', 'agents', 'shared', 'style.md'), 'Use British spelling.\n@../more/deep.md');
    put(path.join(root, '.devx', 'agents', 'more', 'deep.md'), 'Deep rule.');
    put(path.join(home, '.claude', 'global.md'), 'Global rule.');
    put(path.join(root, '.devx', 'agents', 'mem.md'), 'Remembered fact.');
    put(
      path.join(root, '.devx', 'agents', 'writer.md'),
      '---\nname: writer\ndescription: writes\nmemory: mem.md\n---\nIntro\n@./shared/style.md\n@~/.claude/global.md\nMail @alice about it.',
    );
    put(path.join(root, '.devx', 'agents', 'a.md'), 'A\n@./b.md');
    put(path.join(root, '.devx', 'agents', 'b.md'), 'B\n@./a.md');
    put(path.join(root, '.devx', 'agents', 'loopy.md'), '---\nname: loopy\ndescription: cycles\n---\n@./a.md');
    // Until the user trusts the project, its agents cannot import from the home folder at all.
    expect(loadAgents(root, home, devx).errors.find((e) => e.file.endsWith('writer.md'))?.message).toMatch(
      /@?~\/\.claude\/global\.md.*only once you trust the project/,
    );
    setTrusted(devx, root, true);
    const l = loadAgents(root, home, devx);
    expect(l.agents.get('writer')!.prompt).toBe(
      'Intro\nUse British spelling.\nDeep rule.\nGlobal rule.\nMail @alice about it.\n\n# Memory (mem.md)\nRemembered fact.',
    );
    const err = l.errors.find((e) => e.file.endsWith('loopy.md'))!;
    expect(err.message).toBe('import cycle: loopy.md -> a.md -> b.md -> a.md');
  });

  it("imports from ~/.claude, ~/.gemini and ~/.devx are prompt files only, and an untrusted project's agents import nothing from home", () => {
    put(path.join(home, '.claude', 'settings.json'), '{"env":{"ANTHROPIC_API_KEY":"sk-ant-SECRET"}}');
    put(path.join(home, '.claude', 'history.jsonl'), '{"display":"SECRET prompt"}');
    put(path.join(home, '.gemini', 'settings.json'), '{"mcpServers":{"x":{"headers":{"Authorization":"Bearer SECRET"}}}}');
    put(path.join(home, '.gemini', 'tmp', 'abc', 'chat.md'), 'SECRET chat');
    put(path.join(home, '.devx', 'knowledge', 'notes.md'), 'SECRET other project');
    put(path.join(home, '.claude', 'agents', 'style.md'), 'House style.');
    const agent = (dir: string, name: string, body: string) => put(path.join(dir, `${name}.md`), `---\nname: ${name}\ndescription: d\n---\n${body}`);
    const projectAgents = path.join(root, '.devx', 'agents');
    agent(projectAgents, 'psettings', '@~/.claude/settings.json');
    agent(projectAgents, 'pstyle', '@~/.claude/agents/style.md');
    put(path.join(projectAgents, 'pmem.md'), '---\nname: pmem\ndescription: d\nmemory: ~/.claude/agents/style.md\n---\nBody');
    // Untrusted: nothing from home, not even a prompt file.
    let l = loadAgents(root, home, devx);
    for (const n of ['psettings', 'pstyle', 'pmem'])
      expect(l.errors.find((e) => e.file.endsWith(`${n}.md`))?.message, n).toMatch(/only once you trust the project/);
    // Trusted: prompt files yes, the tools' settings, histories, scratch files and knowledge never; the user's own agents too.
    setTrusted(devx, root, true);
    const userAgents = path.join(devx, 'agents');
    agent(userAgents, 'uhistory', '@~/.claude/history.jsonl');
    agent(userAgents, 'ugemini', '@~/.gemini/settings.json');
    agent(userAgents, 'utmp', '@~/.gemini/tmp/abc/chat.md');
    agent(userAgents, 'uknowledge', '@~/.devx/knowledge/notes.md');
    l = loadAgents(root, home, devx);
    expect(l.agents.get('pstyle')!.prompt).toBe('House style.');
    expect(l.agents.get('pmem')!.prompt).toMatch(/House style\./);
    const errOf = (n: string) => l.errors.find((e) => e.file.endsWith(`${n}.md`))?.message;
    expect(errOf('psettings')).toMatch(/not a Markdown file/);
    expect(errOf('uhistory')).toMatch(/not a Markdown file/);
    expect(errOf('ugemini')).toMatch(/not a Markdown file/);
    expect(errOf('utmp')).toMatch(/the tool's own state/);
    expect(errOf('uknowledge')).toMatch(/the tool's own state/);
    for (const a of l.agents.values()) expect(a.prompt, a.name).not.toMatch(/SECRET/);
  });

  it("an untrusted project's agent file linked out of it is not read; once trusted, or the user's own, a link is followed", () => {
    const shared = tempDir('devx-agents-shared-');
    put(path.join(shared, 'secret-agent.md'), '---\nname: private\ndescription: mine\n---\nSECRET house rules');
    fs.mkdirSync(path.join(root, '.devx', 'agents'), { recursive: true });
    fs.symlinkSync(path.join(shared, 'secret-agent.md'), path.join(root, '.devx', 'agents', 'helper.md'));
    let l = loadAgents(root, home, devx);
    expect(l.agents.has('private')).toBe(false);
    expect(l.errors.find((e) => e.file.endsWith('helper.md'))?.message).toMatch(/resolves outside the project/);
    setTrusted(devx, root, true);
    l = loadAgents(root, home, devx);
    expect(l.agents.get('private')?.prompt).toMatch(/SECRET house rules/);
  });

  it('picks up edits without a restart', () => {
    const f = path.join(root, '.devx', 'agents', 'x.md');
    put(f, '---\nname: x\ndescription: first\n---\n');
    expect(loadAgents(root, home, devx).agents.get('x')!.description).toBe('first');
    put(f, '---\nname: x\ndescription: second\n---\n');
    expect(loadAgents(root, home, devx).agents.get('x')!.description).toBe('second');
  });
});

describe('agent personas', () => {
  it('an agent sees only its allowlist; a call outside it gets an error listing what it may use', async () => {
    put(
      path.join(root, '.devx', 'agents', 'reader.md'),
      '---\nname: reader\ndescription: reads\ntools: [read_file, glob]\nmodel: gemini-2.5-flash\n---\nYou only read.',
    );
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha');
    const backend = new ScriptedBackend(['TOOL_CALL: write_file | path=b.txt | content=x\nTOOL_CALL: read_file | path=a.txt', 'done']);
    const agent = await createAgent({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, yes: true, backend });
    const def = loadAgents(root, home, devx).agents.get('reader')!;
    const deps = applyAgent(agent.deps, agent.tools, root, def);
    expect(deps.systemPrompt).toContain('### read_file');
    expect(deps.systemPrompt).not.toContain('### write_file');
    expect(deps.systemPrompt).toContain('You only read.');
    expect(deps.model).toBe('gemini-2.5-flash');
    await runTurn(deps, [], 'go', { signal: new AbortController().signal, emit: () => {} });
    const fed = backend.requests[1].prompt;
    expect(fed).toMatch(/TOOL_RESULT: write_file \| status=error\n`+\nwrite_file is not available to the reader agent. It may use: read_file, glob\./);
    expect(fed).toContain('alpha');
    expect(backend.requests[0].model).toBe('gemini-2.5-flash');
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    await agent.dispose();
  });

  it('an allowlist cannot widen what the permission rules deny', async () => {
    put(path.join(devx, 'settings.json'), JSON.stringify({ permissions: { deny: ['spawn_gemini'] } }));
    put(path.join(root, '.devx', 'agents', 'spawner.md'), '---\nname: spawner\ndescription: s\ntools: [spawn_gemini, read_file]\n---\n');
    const backend = new ScriptedBackend(['TOOL_CALL: spawn_gemini | query=hi', 'done']);
    const agent = await createAgent({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend });
    const deps = applyAgent(agent.deps, agent.tools, root, loadAgents(root, home, devx).agents.get('spawner')!);
    await runTurn(deps, [], 'go', { signal: new AbortController().signal, emit: () => {} });
    expect(backend.requests[1].prompt).toMatch(/TOOL_RESULT: spawn_gemini \| status=error\n`+\ndenied by policy \(settings:user:deny:spawn_gemini\)/);
    await agent.dispose();
  });

  it('suggests the agent whose description fits, and nothing when none does', () => {
    const agents = [
      { name: 'code-reviewer', description: 'Reviews a change for bugs and missing tests' },
      { name: 'docs-writer', description: 'Writes and updates documentation and READMEs' },
    ].map((a) => ({ ...a, prompt: '', scope: 'project' as const, format: 'devx' as const, file: '' }));
    expect(suggestAgent('please review this change for bugs', agents)?.agent.name).toBe('code-reviewer');
    expect(suggestAgent('update the README documentation', agents)?.agent.name).toBe('docs-writer');
    expect(suggestAgent('what time is it', agents)).toBeNull();
  });

  it('parses chains of steps', () => {
    expect(parseChain(['code-analyzer', 'find perf hotspots', 'then', 'optimizer', 'apply fixes'])).toEqual([
      { agent: 'code-analyzer', prompt: 'find perf hotspots' },
      { agent: 'optimizer', prompt: 'apply fixes' },
    ]);
    expect(() => parseChain(['a', 'x', 'b', 'y'])).toThrow(/expected "then"/);
  });
});
