// The VS Code extension's host-independent core (editors/vscode/src/core) against the real
// devx (`devx --acp`, the built bundle) and the fake Gemini API: the selection prompt reaches the model with
// the file, the lines and the diagnostics; an edit devx proposes becomes a diff proposal with its old and
// new text; accepting it writes the file through the client's fs/write_text_file, rejecting leaves it.
import fs from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { DevxAcpClient, type EditorHost } from '../../editors/vscode/src/core/acpClient.js';
import { buildSelectionPrompt } from '../../editors/vscode/src/core/selectionPrompt.js';
import { captureDevx } from '../../editors/vscode/src/core/devxCommand.js';
import { parseAgentList, parseWorkflowList } from '../../editors/vscode/src/core/lists.js';
import type { Choice, Proposal } from '../../editors/vscode/src/core/proposal.js';
import type { FakeGeminiApi, RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, fakeEnv, makeProject } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

const CALC = ['export function add(a: number, b: number): number {', '  const sum: number = `${a}${b}`;', '  return sum;', '}', ''].join('\n');

/** A test editor: buffers it holds (unsaved text), the writes it applied (to disk), the proposals it was shown. */
function testHost(choice: Choice, buffers = new Map<string, string>()) {
  const answer = { choice };
  const proposals: Proposal[] = [];
  const options: acp.PermissionOption[][] = [];
  const writes: { path: string; content: string }[] = [];
  const updates: acp.SessionNotification[] = [];
  const host: EditorHost = {
    readBuffer: (p) => buffers.get(p),
    async writeFile(p, content) {
      writes.push({ path: p, content });
      buffers.delete(p);
      fs.writeFileSync(p, content);
    },
    async decide(p, o) {
      proposals.push(p);
      options.push(o);
      return answer.choice;
    },
    onUpdate: (n) => void updates.push(n),
  };
  return { host, answer, proposals, options, writes, updates };
}

async function start(project: string, host: EditorHost): Promise<DevxAcpClient> {
  const client = await DevxAcpClient.start({ argv: [process.execPath, DEVX_BIN], cwd: project, env: fakeEnv(fake, home), host });
  children.push(client.child);
  await client.newSession(project);
  return client;
}

describe('the VS Code extension core against devx --acp', () => {
  it('asks about a selection: the model gets the file path, the selected lines and the diagnostic', async () => {
    const project = makeProject({ 'src/calc.ts': CALC });
    const file = path.join(project, 'src', 'calc.ts');
    fake.push({ text: 'The template literal makes a string; use a + b.' });
    const t = testHost('reject');
    const client = await start(project, t.host);
    const prompt = buildSelectionPrompt('Why does tsc complain here?', {
      file,
      root: project,
      languageId: 'typescript',
      startLine: 2,
      endLine: 3,
      text: CALC.split('\n').slice(1, 3).join('\n'),
      diagnostics: [
        { line: 2, severity: 'error', source: 'ts', code: '2322', message: "Type 'string' is not assignable to type 'number'." },
        { line: 9, severity: 'warning', message: 'elsewhere' },
      ],
    });
    const r = await client.prompt(prompt);
    expect(r).toEqual({ stopReason: 'end_turn', text: 'The template literal makes a string; use a + b.' });
    const sent = fake.modelCalls[0].promptText;
    expect(sent).toContain('Why does tsc complain here?');
    expect(sent).toContain('File: src/calc.ts (lines 2-3, typescript)');
    expect(sent).toContain('2|   const sum: number = `${a}${b}`;');
    expect(sent).toContain('3|   return sum;');
    expect(sent).toContain("src/calc.ts:2 error (ts 2322): Type 'string' is not assignable to type 'number'.");
    expect(sent).toContain('(1 more diagnostic elsewhere in src/calc.ts.)');
    expect(sent).not.toContain('export function add'); // only the selection
    await client.dispose();
  }, 90_000);

  // One session, one gemini: the same edit proposed twice, rejected and then accepted.
  it('an edit devx proposes is a diff proposal; reject leaves the file, accept writes it through the editor', async () => {
    const project = makeProject({ 'src/calc.ts': CALC });
    const file = path.join(project, 'src', 'calc.ts');
    // The editor holds unsaved text: devx reads it (fs/read_text_file), and the diff's old side is it.
    const unsaved = CALC.replace('return sum;', 'return sum; // unsaved');
    const fixed = unsaved.replace('`${a}${b}`', 'a + b');
    const edit = { text: 'TOOL_CALL: edit_file | path=src/calc.ts | old_text=`${a}${b}` | new_text=a + b' };
    // The answer follows the latest tool result (the transcript devx sends holds the earlier ones too).
    const latest = (req: RecordedRequest) => req.promptText.split('TOOL_RESULT:').pop() ?? '';
    const after = (req: RecordedRequest) => ({ text: /status=error|reject|denied|declin/i.test(latest(req)) ? 'Left it.' : 'Fixed.' });
    fake.push(edit, after, edit, after);
    const t = testHost('reject', new Map([[file, unsaved]]));
    const client = await start(project, t.host);
    // The tool call devx reported: completed when accepted, otherwise not.
    const ended = (from: number) =>
      t.updates
        .slice(from)
        .map((n) => n.update)
        .flatMap((u) => (u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed') ? [u.status] : []));

    const rejected = await client.prompt('fix the sum in src/calc.ts');
    expect(rejected.stopReason).toBe('end_turn');
    expect(t.proposals).toHaveLength(1);
    const p = t.proposals[0];
    expect(p.title).toMatch(/calc\.ts/);
    expect(p.diffs).toEqual([{ path: file, oldText: unsaved, newText: fixed, isNew: false }]);
    expect(p.locations).toEqual([file]);
    expect(t.options[0].map((o) => o.kind)).toEqual(expect.arrayContaining(['allow_once', 'reject_once']));
    expect(t.writes).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(CALC);
    expect(ended(0)).not.toContain('completed');

    t.answer.choice = 'accept';
    const seen = t.updates.length;
    const accepted = await client.prompt('fix it after all');
    expect(t.proposals).toHaveLength(2);
    expect(t.proposals[1].diffs).toEqual([{ path: file, oldText: unsaved, newText: fixed, isNew: false }]);
    expect(t.writes).toEqual([{ path: file, content: fixed }]);
    expect(fs.readFileSync(file, 'utf8')).toBe(fixed);
    expect(accepted.text).toBe('Fixed.');
    expect(ended(seen)).toContain('completed');
    // devx's audit log has both decisions (the policy and the audit stay in devx).
    const audit = fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit.match(/"tool":"edit_file"/g)?.length).toBeGreaterThanOrEqual(2);
    await client.dispose();
  }, 90_000);

  it("parses devx's agent and workflow lists; a devx that cannot start is an error naming it", async () => {
    fs.mkdirSync(path.join(home, '.devx', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews diffs\n---\nYou review.');
    const project = makeProject({});
    const env = fakeEnv(fake, home);
    const agents = parseAgentList(await captureDevx([process.execPath, DEVX_BIN], ['agent', 'list', '--json'], project, env));
    expect(agents[0]).toEqual({ name: 'reviewer', description: 'Reviews diffs', scope: 'user' });
    expect(agents.length).toBeGreaterThan(1);
    const workflows = parseWorkflowList(await captureDevx([process.execPath, DEVX_BIN], ['workflow', 'list', '--json'], project, env));
    expect(workflows.map((w) => w.name)).toContain('dev-pipeline');
    expect(workflows.find((w) => w.name === 'dev-pipeline')!.modes).toContain('bugfix');
    await expect(DevxAcpClient.start({ argv: [path.join(project, 'no-such-devx')], cwd: project, host: testHost('reject').host })).rejects.toThrow(
      /could not start .*no-such-devx/,
    );
  }, 60_000);
});
