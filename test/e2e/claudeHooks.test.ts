// The person's own Claude Code hooks (~/.claude/settings.json) run in devx as the real `claude` runs them:
// the same hook scripts, the same file, side by side. Each hook logs what it read on stdin; for every event
// both ran, every field claude sent is in what devx sent (devx's extras beside them), and a hook file
// with events devx has no moment for still runs the rest.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLAUDE_BIN, useBothFakes } from '../helpers/useBothFakes.js';
import { makeProject, runDevx, tempDir } from '../helpers/env.js';

const f = useBothFakes();

const EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionStart', 'SessionEnd', 'Notification', 'PermissionRequest', 'TeammateIdle'];

/** ~/.claude/settings.json with a logging hook on every event; the log is one JSON line per hook run, tagged with who ran it. */
function plantHooks(home: string): string {
  const dir = tempDir('devx-hooklog-');
  const log = path.join(dir, 'hooks.jsonl');
  const script = path.join(dir, 'log.cjs');
  fs.writeFileSync(
    script,
    `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({by: process.env.DEVX ? 'devx' : 'claude', input: JSON.parse(s)})+'\\n');});\n`,
  );
  const hook = [{ hooks: [{ type: 'command', command: `node ${script}` }] }];
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: Object.fromEntries(EVENTS.map((e) => [e, hook])) }));
  return log;
}

function runClaude(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_BIN, ['-p', 'say hi with a shell command', '--allowedTools', 'Bash', '--output-format', 'json'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const read = (log: string) =>
  fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { by: string; input: Record<string, unknown> })
    : [];

describe("the person's Claude Code hooks", () => {
  it('run in devx with the fields the real claude gives them, for the same events', async () => {
    const log = plantHooks(f.home);
    // claude: one Bash call, then an answer.
    f.claude.push({ text: 'Running it.', toolUse: { name: 'Bash', input: { command: 'echo hi', description: 'say hi' } } }, { text: 'Done.' });
    f.claude.fallback = { text: 'Done.' };
    const c = await runClaude(makeProject({}), f.env());
    expect(c.code, c.stderr).toBe(0);
    // devx: the same task through its own protocol, with the same hook file.
    f.gemini.push({ text: 'TOOL_CALL: run_command | cmd=echo hi' }, { text: 'Done.' });
    const d = await runDevx(['run', 'say hi with a shell command'], { cwd: makeProject({}), env: f.env({ DEVX_SANDBOX: 'off' }) });
    expect(d.code, d.stderr).toBe(0);
    // Named once at start; the events devx has no moment for are named, not fatal.
    expect(d.stderr).toMatch(/running your hooks from ~\/\.claude\/settings\.json/);
    expect(d.stderr).toMatch(/no moment for PermissionRequest, TeammateIdle hooks/);
    const runs = read(log);
    const byClaude = runs.filter((r) => r.by === 'claude');
    const byDevx = runs.filter((r) => r.by === 'devx');
    const claudeEvents = [...new Set(byClaude.map((r) => String(r.input.hook_event_name)))];
    // Every event claude ran for this task, devx ran too.
    expect(claudeEvents.length).toBeGreaterThanOrEqual(3);
    const devxEvents = new Set(byDevx.map((r) => String(r.input.hook_event_name)));
    expect(claudeEvents.filter((e) => !devxEvents.has(e))).toEqual([]);
    // And gave each the fields claude gave it.
    const missing: string[] = [];
    for (const e of claudeEvents) {
      const theirs = new Set(byClaude.filter((r) => r.input.hook_event_name === e).flatMap((r) => Object.keys(r.input)));
      const ours = new Set(byDevx.filter((r) => r.input.hook_event_name === e).flatMap((r) => Object.keys(r.input)));
      for (const k of theirs) if (!ours.has(k)) missing.push(`${e}.${k}`);
    }
    if (missing.length) console.log(JSON.stringify(byClaude, null, 1));
    expect(missing).toEqual([]);
    // The tool's input in Claude Code's names; the pre and post hook of one call share its id.
    const pre = byDevx.find((r) => r.input.hook_event_name === 'PreToolUse')!;
    const post = byDevx.find((r) => r.input.hook_event_name === 'PostToolUse')!;
    expect(pre.input).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'echo hi' }, permission_mode: 'default' });
    expect(post.input.tool_use_id).toBe(pre.input.tool_use_id);
    expect(byDevx.find((r) => r.input.hook_event_name === 'Stop')?.input.last_assistant_message).toBe('Done.');
  }, 120_000);

  it('"importSetup": false leaves them out', async () => {
    const log = plantHooks(f.home);
    fs.mkdirSync(path.join(f.home, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(f.home, '.devx', 'settings.json'), JSON.stringify({ importSetup: false }));
    f.gemini.push({ text: 'Done.' });
    const d = await runDevx(['run', 'hi'], { cwd: makeProject({}), env: f.env() });
    expect(d.code, d.stderr).toBe(0);
    expect(read(log)).toEqual([]);
    expect(d.stderr).not.toMatch(/running your hooks/);
  });
});
