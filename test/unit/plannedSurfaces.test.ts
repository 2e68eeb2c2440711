// One planned change on every surface: an edit of a CRLF file shows the same diff in the
// REPL's confirmation, in a dry run, in the ACP editor (before it runs and after), and the audit log
// records that diff's summary and hash. Each comes from the tool's plan (Tool.plan), never recomputed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type * as acp from '@agentclientprotocol/sdk';
import { runTurn, type AgentEvent, type LoopDeps } from '../../src/core/loop.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ApprovalRequest, ToolCallOutcome } from '../../src/tools/runToolCall.js';
import { ToolCallTracker } from '../../src/acp/toolCalls.js';
import { createAuditSubscriber } from '../../src/audit/auditLog.js';
import { createRenderer } from '../../src/cli/renderEvents.js';
import { unifiedDiff, wholeUnifiedDiff } from '../../src/tools/diffPreview.js';
import { escapeControls } from '../../src/util/terminalText.js';
import { makePolicy } from '../helpers/policy.js';
import { makeLoopDeps } from '../helpers/loopDeps.js';
import { tempDir } from '../helpers/env.js';

let root: string;
let file: string;
const BEFORE = 'one\r\ntwo\r\nthree\r\n';
// The model's text is LF (the protocol normalises it); edit_file matches and writes it in CRLF form.
const CALL = 'TOOL_CALL: edit_file | path=win.txt | old_text=```\none\ntwo\n``` | new_text=```\none\nTWO\nand more\n```';

beforeEach(() => {
  root = tempDir('devx-surfaces-');
  file = path.join(root, 'win.txt');
  fs.writeFileSync(file, BEFORE);
});

async function turn(deps: LoopDeps, emit: (e: AgentEvent) => void): Promise<void> {
  await runTurn(deps, [], 'edit it', { signal: new AbortController().signal, emit });
}

describe('the planned change on every surface', () => {
  it('an edit of a CRLF file: the confirmation, the dry run, the editor and the audit log show one diff', async () => {
    const policy = await makePolicy(root);
    // A real turn, watched as the REPL (its confirmation), ACP (its tracker) and the audit log watch it.
    const tracker = new ToolCallTracker(
      () => root,
      () => deps.tools,
    );
    const audit = path.join(root, '.devx', 'audit.jsonl');
    fs.mkdirSync(path.dirname(audit), { recursive: true });
    const auditSink = createAuditSubscriber(audit, 'test-session');
    let asked: ApprovalRequest | undefined;
    let editorBefore: acp.ToolCallContent[] = [];
    let editorAfter: acp.ToolCallContent[] = [];
    let ran: ToolCallOutcome | undefined;
    const deps: LoopDeps = makeLoopDeps(root, new ScriptedBackend([CALL, 'Done.']), policy, {
      approve: async (req) => {
        asked = req;
        editorBefore = tracker.forPermission(req).toolCall.content ?? [];
        return 'yes';
      },
    });
    await turn(deps, (e) => {
      auditSink(e);
      if (e.type === 'tool_start') tracker.start(e.tool, e.args);
      if (e.type === 'tool_end') {
        ran = e.outcome;
        const u = tracker.end(e.outcome);
        editorAfter = u.sessionUpdate === 'tool_call_update' ? (u.content ?? []) : [];
      }
    });
    const after = fs.readFileSync(file, 'utf8');
    expect(after).toBe('one\r\nTWO\r\nand more\r\nthree\r\n');
    const repl = asked!.preview!;
    expect(repl).toBe(unifiedDiff('win.txt', BEFORE, after));

    // The editor: the same plan as a diff, when asked and once it ran.
    const diff = { type: 'diff', path: file, oldText: BEFORE, newText: after };
    expect(editorBefore).toEqual([diff]);
    expect(editorAfter).toEqual([diff]);
    expect(ran!.plan).toEqual(asked!.plan);

    // The audit log: the plan's summary and the hash of its whole diff.
    const entry = fs
      .readFileSync(audit, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; plan?: unknown })
      .filter((e) => e.event === 'tool_call')
      .at(-1)!;
    const whole = wholeUnifiedDiff('win.txt', BEFORE, after);
    expect(whole).toBe(repl); // small enough not to be cut
    expect(entry.plan).toEqual({ kind: 'edit', path: 'win.txt', added: 2, removed: 1, diffSha256: crypto.createHash('sha256').update(whole).digest('hex') });

    // A dry run of the same call, on the file as it was: the same plan and the same diff, and nothing written.
    fs.writeFileSync(file, BEFORE);
    let out = '';
    const render = createRenderer({
      out: { write: (s: string) => ((out += s), true), isTTY: false, columns: 120 } as unknown as NodeJS.WriteStream,
      answerOut: null,
      env: { NO_COLOR: '1' },
      dryRun: true,
    });
    let dry: ToolCallOutcome | undefined;
    await turn(makeLoopDeps(root, new ScriptedBackend([CALL]), policy, { dryRun: true }), (e) => {
      render.onEvent(e);
      if (e.type === 'tool_end') dry = e.outcome;
    });
    render.stop();
    expect(fs.readFileSync(file, 'utf8')).toBe(BEFORE);
    expect(dry!.plan).toEqual(asked!.plan);
    expect(dry!.preview).toBe(repl);
    // Shown as the confirmation shows it: CRLF as LF (escapeControls), then indented.
    expect(out).toContain(escapeControls(repl).replace(/^/gm, '      '));
    expect(out).toMatch(/would ask/);
  });
});
