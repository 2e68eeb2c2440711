// The VS Code extension's pure helpers (editors/vscode/src/core): finding devx, quoting for the terminal,
// the selection prompt, permission answers, the lists and the audit log's lines. The ACP wiring is tested
// against the real devx in test/e2e/vscodeCore.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine, resolveDevx, splitCommandLine } from '../../editors/vscode/src/core/devxCommand.js';
import { buildSelectionPrompt, displayPath } from '../../editors/vscode/src/core/selectionPrompt.js';
import { answerFor, proposalFromPermission } from '../../editors/vscode/src/core/proposal.js';
import { parseAgentList, renderAuditLog } from '../../editors/vscode/src/core/lists.js';
import { describeUpdate, sliceLines } from '../../editors/vscode/src/core/acpClient.js';

const OPTIONS = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' as const },
  { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' as const },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' as const },
];

describe('the VS Code extension core', () => {
  it('finds devx: the setting as a command line, else devx on PATH, else npx devx', () => {
    expect(splitCommandLine(`npx  devx`)).toEqual(['npx', 'devx']);
    expect(splitCommandLine(`"/opt/my tools/devx" --model 'gemini 2' a\\ b`)).toEqual(['/opt/my tools/devx', '--model', 'gemini 2', 'a b']);
    expect(() => splitCommandLine(`"open`)).toThrow(/unclosed/);
    expect(resolveDevx('/usr/local/bin/devx --yes')).toEqual(['/usr/local/bin/devx', '--yes']);
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'devx-path-'));
    expect(resolveDevx('', { PATH: bin })).toEqual(['npx', 'devx']);
    fs.writeFileSync(path.join(bin, 'devx'), '#!/bin/sh\n', { mode: 0o755 });
    expect(resolveDevx(undefined, { PATH: bin })).toEqual(['devx']);
    fs.rmSync(bin, { recursive: true });
    expect(commandLine(['devx', 'agent', 'run', 'reviewer', 'it\'s a "test" $HOME'])).toBe(`devx agent run reviewer 'it'\\''s a "test" $HOME'`);
  });

  it('builds the selection prompt: relative path, numbered lines, the diagnostics on them, a fence longer than the code needs', () => {
    expect(displayPath('/w/p/src/a.ts', '/w/p')).toBe('src/a.ts');
    expect(displayPath('/elsewhere/a.ts', '/w/p')).toBe('/elsewhere/a.ts');
    const text = buildSelectionPrompt('', {
      file: '/w/p/README.md',
      root: '/w/p',
      startLine: 9,
      endLine: 10,
      text: 'see ```sh\nnpm test\n',
      diagnostics: [{ line: 10, severity: 'warning', message: 'spelling' }],
      dirty: true,
    });
    expect(text).toBe(
      [
        'Explain this code.',
        '',
        'File: README.md (lines 9-10, unsaved changes)',
        '````',
        ' 9| see ```sh',
        '10| npm test',
        '````',
        '',
        'Diagnostics on these lines:',
        '- README.md:10 warning: spelling',
      ].join('\n'),
    );
  });

  it('turns a permission request into a proposal and a choice into an option', () => {
    const p = proposalFromPermission({
      sessionId: 's',
      options: OPTIONS,
      toolCall: {
        toolCallId: 'call_1',
        title: 'write_file new.txt',
        kind: 'edit',
        locations: [{ path: '/p/new.txt' }],
        content: [{ type: 'diff', path: '/p/new.txt', oldText: null, newText: 'hi\n' }],
      },
    });
    expect(p).toMatchObject({ toolCallId: 'call_1', title: 'write_file new.txt', diffs: [{ path: '/p/new.txt', oldText: '', newText: 'hi\n', isNew: true }] });
    expect(answerFor('accept', OPTIONS)).toEqual({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
    expect(answerFor('acceptAlways', OPTIONS)).toEqual({ outcome: { outcome: 'selected', optionId: 'allow_always' } });
    expect(answerFor(undefined, OPTIONS)).toEqual({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
    expect(answerFor('reject', OPTIONS.slice(0, 2))).toEqual({ outcome: { outcome: 'cancelled' } });
  });

  it('parses the agent list (project and user agents first), renders the audit log, slices fs reads', () => {
    const json = JSON.stringify({
      agents: [
        { name: 'architect', scope: 'builtin', description: 'plans' },
        { name: 'zed', scope: 'project', description: 'z' },
        { name: 'me', scope: 'user', description: 'm' },
      ],
    });
    expect(parseAgentList(json).map((a) => a.name)).toEqual(['zed', 'me', 'architect']);
    expect(() => parseAgentList('error: nope')).toThrow(/did not print JSON/);
    const log = [JSON.stringify({ time: 't1', tool: 'edit_file', decision: 'ask', status: 'ok', answer: 'yes', args: { path: 'a.txt' } }), 'not json'].join(
      '\n',
    );
    expect(renderAuditLog(log)).toEqual(['t1 edit_file      ask   ok    answer=yes path=a.txt', 'not json']);
    expect(sliceLines('a\nb\nc\nd', 2, 2)).toBe('b\nc');
    expect(sliceLines('a\nb', null, null)).toBe('a\nb');
    expect(describeUpdate({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'run_command ls', status: 'pending' })).toBe('▸ run_command ls');
  });
});
