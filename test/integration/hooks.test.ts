// Hooks in Claude Code's format, run as real bash programs around a real AgentRun
// (scripted model). Judged by effects: a blocked command's marker never appears, a rewritten call runs
// as rewritten, what hooks print reaches the model, a hanging hook is killed at its timeout, a project's
// hooks run only once the project is trusted, and every hook run is in the audit log.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ModelRequest } from '../../src/providers/types.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { startSession, endSession } from '../../src/runtime/startSession.js';
import type { AgentEvent } from '../../src/core/loop.js';
import type { ApprovalRequest } from '../../src/tools/runToolCall.js';
import { setTrusted } from '../../src/config/trust.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
let marks: string;
const runs: AgentRun[] = [];
beforeEach(() => {
  root = makeProject({ 'README.md': 'hello\n' });
  home = tempDir('devx-hooks-home-');
  marks = tempDir('devx-hooks-marks-');
});
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});

const userHooks = (hooks: object) => {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ hooks }));
};
const cmd = (command: string, timeout?: number) => ({ hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] });
/** A hook script file (so quoting stays simple). */
const script = (name: string, body: string) => {
  const f = path.join(marks, `${name}.sh`);
  fs.writeFileSync(f, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return f;
};

async function run(replies: (string | ((r: ModelRequest) => string))[], approve?: (r: ApprovalRequest) => Promise<'yes' | 'no'>) {
  const backend = new ScriptedBackend(replies);
  const asked: ApprovalRequest[] = [];
  const r = await AgentRun.create({
    cwd: root,
    env: { PATH: process.env.PATH, HOME: home },
    backend,
    history: 'project',
    prompt: async (req) => {
      asked.push(req);
      return approve ? approve(req) : 'yes';
    },
  });
  runs.push(r);
  const events: AgentEvent[] = [];
  r.subscribe((e) => events.push(e));
  return { r, backend, events, asked };
}
const toolResults = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'tool_end' ? [e.outcome] : []));

describe('PreToolUse', () => {
  it('exit 2 blocks the call with its stderr as the reason for the model; the command never runs; the run is audited', async () => {
    const marker = path.join(marks, 'ran');
    userHooks({ PreToolUse: [{ matcher: 'Bash', ...cmd(script('block', 'cat > /dev/null; echo "no shell today" >&2; exit 2')) }] });
    const { r, events } = await run([`TOOL_CALL: run_command | cmd=touch ${marker}`, 'ok']);
    await r.prompt('go');
    const [o] = toolResults(events);
    expect(o.status).toBe('error');
    expect(o.content).toMatch(/blocked by a PreToolUse hook: no shell today/);
    expect(fs.existsSync(marker)).toBe(false);
    const audit = fs.readFileSync(path.join(root, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"hook":"PreToolUse".*"outcome":"blocked"/);
  });

  it('sees Claude Code names (tool_name Bash, tool_input.command); a matcher on another tool does not fire; updatedInput rewrites the call', async () => {
    const seen = path.join(marks, 'seen.json');
    const rewrite = script(
      'rewrite',
      `cat > ${seen}; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten-by-hook"}}}'`,
    );
    const never = path.join(marks, 'never');
    userHooks({
      PreToolUse: [
        { matcher: 'Write|Edit', ...cmd(`touch ${never}`) },
        { matcher: 'run_command', ...cmd(rewrite) },
      ],
    });
    const { r, events } = await run(['TOOL_CALL: run_command | cmd=echo original', 'ok']);
    await r.prompt('go');
    const input = JSON.parse(fs.readFileSync(seen, 'utf8'));
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      devx_tool_name: 'run_command',
      tool_input: { command: 'echo original', cmd: 'echo original' },
      cwd: root,
    });
    expect(fs.existsSync(never)).toBe(false);
    const [o] = toolResults(events);
    expect(o.content).toMatch(/rewritten-by-hook/);
    expect(o.content).not.toMatch(/original/);
  });

  it('an approval answers an ask without the person, but never lifts a deny', async () => {
    userHooks({ PreToolUse: [cmd(script('allow', `cat > /dev/null; echo '{"decision":"approve"}'`))] });
    const { r, events, asked } = await run([
      'TOOL_CALL: write_file | path=notes.txt | content=hi',
      'TOOL_CALL: write_file | path=.git/hooks/pre-commit | content=evil',
      'ok',
    ]);
    await r.prompt('go');
    const [a, b] = toolResults(events);
    expect(asked).toEqual([]);
    expect(a.status).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('hi');
    expect(b.status).toBe('error');
    expect(b.content).toMatch(/denied by policy/);
    expect(fs.existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('a hook that hangs is killed at its timeout and the call goes on; the person sees why', async () => {
    userHooks({ PreToolUse: [cmd('sleep 30', 1)] });
    const { r, events } = await run(['TOOL_CALL: read_file | path=README.md', 'ok']);
    const t0 = Date.now();
    await r.prompt('go');
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(events.find((e) => e.type === 'hook')).toMatchObject({ outcome: 'error', message: 'killed after its 1s timeout' });
    expect(toolResults(events)[0].status).toBe('ok');
  });
});

describe('the other events', () => {
  it('PostToolUse adds to the result; UserPromptSubmit adds context or stops the message; SessionStart gives context', async () => {
    userHooks({
      PostToolUse: [{ matcher: 'Read', ...cmd(script('post', `cat > /dev/null; echo '{"decision":"block","reason":"README is stale, say so"}'`)) }],
      UserPromptSubmit: [
        cmd(script('ups', 'p=$(cat); if grep -q forbidden <<<"$p"; then echo "not that" >&2; exit 2; fi; echo "the user is on the night shift"')),
      ],
      SessionStart: [cmd('echo "today is release day"')],
    });
    const seen: string[] = [];
    const replies = ['TOOL_CALL: read_file | path=README.md', 'ok', 'fine'].map((t) => (req: ModelRequest) => (seen.push(req.prompt), t));
    const s = await startSession({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend: new ScriptedBackend(replies), yes: true });
    const events: AgentEvent[] = [];
    s.run.subscribe((e) => events.push(e));
    await s.run.prompt('read it');
    expect(seen[0]).toMatch(/today is release day/);
    expect(seen[0]).toMatch(/the user is on the night shift/);
    expect(toolResults(events)[0].content).toMatch(/\[PostToolUse hook: README is stale, say so\]/);
    const stopped = await s.run.prompt('do the forbidden thing');
    expect(stopped.status).toBe('error');
    expect(stopped.error?.message).toMatch(/a UserPromptSubmit hook stopped this message: not that/);
    expect(seen.some((p) => p.includes('forbidden'))).toBe(false);
    await endSession(s, { draft: 'none' });
    await s.run.dispose();
  });

  it('Stop sends the model back once with the reason, then lets it finish', async () => {
    const count = path.join(marks, 'count');
    userHooks({
      Stop: [
        cmd(
          script(
            'stop',
            `cat > /dev/null; n=$(cat ${count} 2>/dev/null || echo 0); echo $((n+1)) > ${count}; if [ "$n" = 0 ]; then echo '{"decision":"block","reason":"run the tests first"}'; fi`,
          ),
        ),
      ],
    });
    const { r, backend } = await run(['Done.', 'Tests run, now done.']);
    const res = await r.prompt('finish');
    expect(res.answer).toBe('Tests run, now done.');
    expect(backend.requests[1].prompt).toMatch(/a Stop hook asks you to go on: run the tests first/);
    expect(fs.readFileSync(count, 'utf8').trim()).toBe('2');
  });
});

describe('whose hooks run', () => {
  it("the user's own hooks start outside a project that is not trusted: its files are no program's to pick up", async () => {
    // `npx --no-install tool` runs the tool of the folder it starts in: an untrusted project ships its own.
    const marker = path.join(marks, 'project-tool-ran');
    fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'node_modules', '.bin', 'fmt-probe'),
      `#!/bin/sh
touch ${marker}
`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(root, 'probe.sh'),
      `touch ${marker}
`,
    );
    const where = path.join(marks, 'where');
    userHooks({
      UserPromptSubmit: [cmd(`cat > ${where}.json; pwd > ${where}; echo "$CLAUDE_PROJECT_DIR" >> ${where}; ./node_modules/.bin/fmt-probe; sh probe.sh; true`)],
    });
    const first = await run(['ok']);
    await first.r.prompt('hi');
    expect(fs.existsSync(marker)).toBe(false);
    const [cwd, projectDir] = fs.readFileSync(where, 'utf8').trim().split('\n');
    expect(cwd).not.toBe(root);
    expect(projectDir).toBe(root);
    expect(JSON.parse(fs.readFileSync(`${where}.json`, 'utf8')).cwd).toBe(root);
    // Trusted, the project is where they start.
    setTrusted(path.join(home, '.devx'), root, true);
    const second = await run(['ok']);
    await second.r.prompt('hi');
    expect(fs.readFileSync(where, 'utf8').split('\n')[0]).toBe(root);
    expect(fs.existsSync(marker)).toBe(true);
  });

  it("a project's hooks (devx settings and .claude/settings.json) run only once the project is trusted", async () => {
    const a = path.join(marks, 'devx-project-hook');
    const b = path.join(marks, 'claude-project-hook');
    fs.mkdirSync(path.join(root, '.claude'), { recursive: true });
    fs.mkdirSync(path.join(root, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(root, '.devx', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [cmd(`touch ${a}`)] } }));
    fs.writeFileSync(path.join(root, '.claude', 'settings.json'), JSON.stringify({ model: 'opus', hooks: { UserPromptSubmit: [cmd(`touch ${b}`)] } }));
    const first = await run(['ok']);
    expect(first.r.agent.warnings.join('\n')).toMatch(/this project asks for hooks \(in \.devx\/settings\.json, \.claude\/settings\.json\)/);
    await first.r.prompt('hi');
    expect([fs.existsSync(a), fs.existsSync(b)]).toEqual([false, false]);
    setTrusted(path.join(home, '.devx'), root, true);
    const second = await run(['ok']);
    await second.r.prompt('hi');
    expect([fs.existsSync(a), fs.existsSync(b)]).toEqual([true, true]);
  });
});
