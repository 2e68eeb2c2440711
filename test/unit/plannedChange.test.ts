// Tools that write a file plan their change (Tool.plan) with the code their execute uses; the REPL's
// confirmation and ACP's diff both show that plan, so an editor is shown the bytes devx then writes
// (a CRLF file edited with the model's LF text, a line appended to a file without a final newline).
import { plainToolContext } from '../helpers/toolContext.js';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type * as acp from '@agentclientprotocol/sdk';
import { builtinTools } from '../../src/tools/registry.js';
import { runToolCall, type ApprovalRequest, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { ToolCallTracker } from '../../src/acp/toolCalls.js';
import { makePolicy } from '../helpers/policy.js';
import { tempDir } from '../helpers/env.js';
import type { PolicyEngine } from '../../src/policy/decide.js';

let root: string;
let policy: PolicyEngine;

beforeEach(async () => {
  root = tempDir('devx-plan-');
  policy = await makePolicy(root);
});

/** Runs a call as the ACP session does: announced, asked through the tracker, run; returns what the editor was shown. */
async function callOverAcp(tool: string, args: Record<string, string>): Promise<{ asked: ApprovalRequest; shown: acp.ToolCallContent[]; status: string }> {
  const tools = new Map(builtinTools().map((t) => [t.name, t]));
  const tracker = new ToolCallTracker(
    () => root,
    () => tools,
  );
  let asked: ApprovalRequest | undefined;
  let shown: acp.ToolCallContent[] = [];
  const deps: ToolCallDeps = {
    tools,
    ctx: plainToolContext(root),
    decide: (t, a) => policy.decideToolCall(t, a),
    approve: async (req) => {
      asked = req;
      shown = tracker.forPermission(req).toolCall.content ?? [];
      return 'yes';
    },
    maxOutputChars: 50_000,
  };
  tracker.start(tool, args);
  const o = await runToolCall({ tool, args }, deps);
  tracker.end(o);
  expect(asked, 'the call was not asked about').toBeDefined();
  return { asked: asked!, shown, status: o.status };
}

describe('planned changes', () => {
  it('edit_file on a CRLF file: the editor is shown exactly the bytes devx writes, CRLF kept', async () => {
    const file = path.join(root, 'win.txt');
    fs.writeFileSync(file, 'one\r\ntwo\r\nthree\r\n');
    const r = await callOverAcp('edit_file', { path: 'win.txt', old_text: 'one\ntwo\n', new_text: 'one\nTWO\nand more\n' });
    expect(r.status).toBe('ok');
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toBe('one\r\nTWO\r\nand more\r\nthree\r\n');
    expect(r.shown).toEqual([{ type: 'diff', path: file, oldText: 'one\r\ntwo\r\nthree\r\n', newText: written }]);
    expect(r.asked.plan).toMatchObject({ kind: 'edit', path: file, shown: 'win.txt', newText: written });
    // The REPL's confirmation is written from the same plan.
    expect(r.asked.preview).toContain('+TWO');
    expect(r.asked.preview).toContain('+and more');
  });

  it('append_file to a file without a final newline: the diff has the newline devx adds, before and after', async () => {
    const file = path.join(root, 'log.txt');
    fs.writeFileSync(file, 'first');
    const r = await callOverAcp('append_file', { path: 'log.txt', content: 'second' });
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toBe('first\nsecond\n');
    expect(r.shown).toEqual([{ type: 'diff', path: file, oldText: 'first', newText: written }]);
    expect(r.asked.plan?.kind).toBe('append');
    expect(r.asked.preview).toBe('append to log.txt: 1 line(s)\n+second');
  });

  it('write_file creating a file: oldText is null and newText the content', async () => {
    const r = await callOverAcp('write_file', { path: 'src/new.ts', content: 'export {};\r\n' });
    const file = path.join(root, 'src/new.ts');
    expect(r.shown).toEqual([{ type: 'diff', path: file, oldText: null, newText: fs.readFileSync(file, 'utf8') }]);
    expect(r.asked.plan?.kind).toBe('create');
    expect(r.asked.preview).toMatch(/^create src\/new\.ts \(1 lines, 12 bytes\)/);
  });

  it('a tool without a plan shows its preview as text', async () => {
    const tools = new Map(builtinTools().map((t) => [t.name, t]));
    const tracker = new ToolCallTracker(
      () => root,
      () => tools,
    );
    const p = tracker.forPermission({
      tool: 'run_command',
      args: { cmd: 'make' },
      decision: { decision: 'ask', reason: 'r', rule: 'x' },
      summary: 'make',
      locations: [],
      preview: 'in /proj',
    });
    expect(p.toolCall.content).toEqual([{ type: 'content', content: { type: 'text', text: 'in /proj' } }]);
  });
});
