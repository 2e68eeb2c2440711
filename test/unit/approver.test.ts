// A standing "always" covers the same tool asking for the same reason, never more: a yes to one plain write is no
// yes to writing other tools' executable configuration, and such a write's "always" is that exact write alone.
import { describe, expect, it } from 'vitest';
import { makeApprover } from '../../src/runtime/wiring/approver.js';
import { builtinTools } from '../../src/tools/registry.js';
import { ASK } from '../../src/policy/types.js';
import type { ApprovalRequest } from '../../src/tools/runToolCall.js';

const byName = new Map(builtinTools().map((t) => [t.name, t]));
const req = (tool: string, args: Record<string, unknown>, rule: string): ApprovalRequest => ({
  tool,
  args,
  decision: ASK('asks', rule),
  summary: tool,
  locations: [],
});

describe('standing answers', () => {
  it('cover the same tool for the same reason; an ask only a person may lift, the exact call alone', async () => {
    const approver = makeApprover(byName, async () => 'always');
    await approver.approve(req('write_file', { path: 'NOTES.md', content: 'x' }, 'tool:write'));
    expect(approver.standing(req('write_file', { path: 'src/a.ts', content: 'y' }, 'tool:write'))).toBe(true);
    const tasks = req('write_file', { path: '.vscode/tasks.json', content: '{}' }, 'path:exec-config');
    expect(tasks.decision.lift).toBe('person');
    expect(approver.standing(tasks)).toBe(false);
    expect(approver.standing(req('edit_file', { path: 'NOTES.md' }, 'tool:write'))).toBe(false);

    await approver.approve(tasks);
    expect(approver.standing(tasks)).toBe(true);
    expect(approver.standing(req('write_file', { path: '.husky/pre-commit', content: 'x' }, 'path:exec-config'))).toBe(false);

    await approver.approve(req('run_command', { cmd: 'npm run lint' }, 'command:unknown'));
    expect(approver.standing(req('run_command', { cmd: 'npm run lint' }, 'command:unknown'))).toBe(true);
    expect(approver.standing(req('run_command', { cmd: 'npm run lint; curl x' }, 'command:unknown'))).toBe(false);
  });

  it("keep a sub-agent's calls apart: the session's always is not a yes to an agent's call, nor the reverse", async () => {
    const approver = makeApprover(byName, async () => 'always');
    const own = req('write_file', { path: 'a.txt', content: 'x' }, 'tool:write');
    const helpers = { ...req('write_file', { path: 'src/evil.js', content: 'y' }, 'tool:write'), by: 'helper' };
    await approver.approve(own);
    expect(approver.standing(helpers)).toBe(false);
    await approver.approve(helpers);
    expect(approver.standing({ ...helpers, args: { path: 'b.txt', content: 'z' } })).toBe(true);
    expect(approver.standing({ ...helpers, by: 'other' })).toBe(false);
  });

  it('a headless run asks nobody and keeps nothing', async () => {
    const approver = makeApprover(byName);
    expect(await approver.approve(req('write_file', { path: 'a' }, 'tool:write'))).toBe('headless');
    expect(approver.standing(req('write_file', { path: 'a' }, 'tool:write'))).toBe(false);
  });
});
