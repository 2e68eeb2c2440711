// Custom commands from .gemini/commands (TOML), .claude/commands (Markdown) and
// .devx/commands, user and project, through a real AgentRun with a scripted model. Injections are judged
// by effects: what reaches the model, what the policy refused, what ran. The injections that run commands
// are in test/integration/customCommands.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ModelRequest } from '../../src/providers/types.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { loadCustomCommands } from '../../src/commands/loadCommands.js';
import { expandCommand, fillClaudeArgs } from '../../src/commands/expandCommand.js';
import { setTrusted } from '../../src/config/trust.js';
import { renderCustomHelp } from '../../src/cli/help.js';
import { makeProject, tempDir } from '../helpers/env.js';

const SEED = path.resolve(__dirname, '../fixtures/seed000');
let root: string;
let home: string;
const runs: AgentRun[] = [];
beforeEach(() => {
  root = makeProject({ 'README.md': 'hello from the readme\n' }, { git: false });
  home = tempDir('devx-cmd-home-');
});
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});

const put = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};
const trust = () => setTrusted(path.join(home, '.devx'), root, true);

async function session(replies = ['ok', 'ok', 'ok']) {
  const prompts: string[] = [];
  const backend = new ScriptedBackend(replies.map((t) => (req: ModelRequest) => (prompts.push(req.prompt), t)));
  const r = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend, history: 'project', prompt: async () => 'yes' });
  runs.push(r);
  return { r, prompts };
}

describe('loading', () => {
  it("the product brief's three TOML files, copied as written, load as /agent:start, /agent:run, /agent:status; devx's own win, the brief's run as /project:…", async () => {
    for (const f of ['start', 'run', 'status'])
      put(path.join(root, '.gemini', 'commands', 'agent', `${f}.toml`), fs.readFileSync(path.join(SEED, `${f}.toml`), 'utf8'));
    trust();
    const { r, prompts } = await session();
    expect([...r.agent.commands.commands.keys()].sort()).toEqual(['agent:run', 'agent:start', 'agent:status']);
    expect(r.agent.warnings.filter((w) => /has the name of a devx command/.test(w))).toHaveLength(3);
    expect(await r.promptCommand('/agent:start coder-agent "write x"')).toBeNull(); // devx's own /agent:start is the REPL's
    const res = await r.promptCommand('/project:agent:start coder-agent "Create a python script"');
    expect(res?.status).toBe('answered');
    expect(prompts[0]).toMatch(/\*\*User Arguments:\*\* `coder-agent "Create a python script"`/);
    expect(prompts[0]).toMatch(/"agent": "coder-agent",\s+"prompt": "Create a python script"/);
    expect(prompts[0]).toMatch(/# Plan for coder-agent - Create a python script/);
  });

  it("a project's commands wait for trust; the user's load; a broken file is named with its line and the rest load", async () => {
    put(path.join(root, '.claude', 'commands', 'review.md'), '---\ndescription: Review the diff\n---\nReview $ARGUMENTS');
    put(path.join(home, '.gemini', 'commands', 'hello.toml'), 'description = "Say hello"\nprompt = "Say hello to {{args}}"\n');
    put(path.join(home, '.devx', 'commands', 'bad.toml'), 'description = "x"\nprompt = """unterminated\n');
    put(path.join(home, '.devx', 'commands', 'git', 'sum.md'), 'Summarise the log');
    const before = loadCustomCommands({ root, home, devxHome: path.join(home, '.devx'), trusted: false });
    expect([...before.commands.keys()].sort()).toEqual(['git:sum', 'hello']);
    expect(before.untrusted).toEqual(['.claude/commands/review.md']);
    expect(before.errors).toEqual([
      expect.objectContaining({
        file: path.join(home, '.devx', 'commands', 'bad.toml'),
        message: expect.stringMatching(/not valid TOML/),
        line: expect.any(Number),
      }),
    ]);
    const after = loadCustomCommands({ root, home, devxHome: path.join(home, '.devx'), trusted: true });
    expect(after.commands.get('review')).toMatchObject({ scope: 'project', description: 'Review the diff', syntax: 'claude' });
  });
});

describe('expansion', () => {
  it("Gemini CLI's syntax: {{args}}, the seed's {{argN}}, shell and file injections, arguments quoted inside !{…}", () => {
    const parts = expandCommand({ syntax: 'gemini', body: 'Fix {{args}}.\n!{grep -n {{arg0}} src}\n@{docs/{{arg1}}.md}\nend' }, 'TODO "style guide"; rm -rf /');
    expect(parts).toEqual([
      { text: 'Fix TODO "style guide"; rm -rf /.\n' },
      { shell: "grep -n 'TODO' src" },
      { text: '\n' },
      { file: 'docs/style guide.md', raw: '@{docs/{{arg1}}.md}' },
      { text: '\nend' },
    ]);
    // A prompt without {{args}} gets the arguments after it.
    expect(expandCommand({ syntax: 'gemini', body: 'Review.' }, 'src/a.ts')).toEqual([{ text: 'Review.' }, { text: '\n\nsrc/a.ts' }]);
  });

  it("Claude Code's syntax: $ARGUMENTS, $0, !`cmd`, @path", () => {
    expect(
      expandCommand({ syntax: 'claude', body: 'Issue $0 (all: $ARGUMENTS)\nStatus: !`git status --short`\nSee @src/app.ts and mail me@example' }, '42 high'),
    ).toEqual([
      { text: 'Issue 42 (all: 42 high)\nStatus: ' },
      { shell: 'git status --short' },
      { text: '\nSee ' },
      { file: 'src/app.ts', raw: '@src/app.ts' },
      { text: ' and mail me@example' },
    ]);
  });

  it("Claude Code's numbering, as its 2.1 binary fills: from $0, $ARGUMENTS[N], names, \\$ literal, past the end as written", () => {
    const fill = (body: string, args: string, names?: string[]) => fillClaudeArgs(body, args, names);
    expect(fill('[$0] [$1] [$ARGUMENTS[1]] [$2]', `a 'b c'`)).toBe('[a] [b c] [b c] [$2]');
    expect(fill('[$who] [$what] [$whom]', 'x y', ['who', 'what'])).toBe('[x] [y] [$whom]');
    expect(fill('[\\$0] [$0]', 'x')).toBe('[$0] [x]');
    // What is filled in is not filled again; nothing filled: the arguments follow the text.
    expect(fill('[$1] [$0]', `'$1' z`)).toBe('[z] [$1]');
    expect(fill('Review.', 'src/a.ts')).toBe('Review.\n\nARGUMENTS: src/a.ts');
    expect(fill('Only [$3]', 'a')).toBe('Only [$3]\n\nARGUMENTS: a');
    expect(fill('All: [$ARGUMENTS]', '')).toBe('All: []');
  });

  it('/help lists a command whose name devx takes under the name that runs it', () => {
    put(path.join(home, '.claude', 'commands', 'help.md'), 'My own help.');
    put(path.join(home, '.claude', 'commands', 'review.md'), 'Review it.');
    const loaded = loadCustomCommands({ root, home, devxHome: path.join(home, '.devx'), trusted: false });
    const text = renderCustomHelp(loaded);
    expect(text).toMatch(/^ {2}\/user:help +My own help\./m);
    expect(text).toMatch(/^ {2}\/review +Review it\./m);
    expect(text).not.toMatch(/^ {2}\/help /m);
  });
});
