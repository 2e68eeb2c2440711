// MCP tools under devx's policy, in-process: real servers (server-everything and server-filesystem over stdio) behind
// the headless runs `devx run` and `devx agent run` make, with a scripted model in place of gemini. What the model was
// offered (the system prompt) and the TOOL_RESULT blocks it got back are asserted. The servers over HTTP, their
// faults, trust and the REPL run through the binary and the real gemini in test/e2e/mcp.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/runtime/runHeadless.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ApprovalMode } from '../../src/policy/types.js';
import { REPO_ROOT, inProcessEnv, makeHome, makeProject, tempDir } from '../helpers/env.js';

const BIN = path.join(REPO_ROOT, 'node_modules', '.bin');
const EVERYTHING = path.join(BIN, 'mcp-server-everything');
const FILESYSTEM = path.join(BIN, 'mcp-server-filesystem');
const everything = (extra: Record<string, unknown> = {}) => ({ command: EVERYTHING, args: ['stdio'], ...extra });

/** A home whose user settings are `settings`, and the environment of a run in it. */
function homeWith(settings: unknown): NodeJS.ProcessEnv {
  const home = makeHome();
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
  return inProcessEnv(home);
}

/** One headless run whose model sends `calls`, then answers; what it was offered and what it got back. */
async function runCalls(cwd: string, env: NodeJS.ProcessEnv, calls: string, opts: { approval?: ApprovalMode; persona?: string } = {}) {
  const model = new ScriptedBackend([calls, 'done']);
  const warnings: string[] = [];
  const r = await runHeadless({ prompt: 'go', cwd, env, backend: model, onWarning: (w) => warnings.push(w), ...opts });
  return { r, warnings, offered: model.requests[0].systemPrompt, results: model.requests[1]?.prompt ?? '' };
}

describe('MCP tools under the policy', () => {
  it('untrusted: asks, so a headless run and yolo refuse; a deny rule holds in every approval mode and hides the tool', async () => {
    const env = homeWith({ mcpServers: { everything: everything({ trust: true }), plain: everything() }, permissions: { deny: ['mcp__everything__echo'] } });
    const project = makeProject({});
    for (const approval of ['default', 'yolo', 'auto-edit'] as const) {
      const { r, offered, results } = await runCalls(project, env, 'TOOL_CALL: mcp__everything__echo | message=x\nTOOL_CALL: mcp__plain__echo | message=y', {
        approval,
      });
      expect(r.status, approval).toBe('answered');
      expect(offered).not.toContain('### mcp__everything__echo');
      expect(offered).toContain('### mcp__everything__get_sum');
      expect(results).toContain('denied by policy (settings:user:deny:mcp__everything__echo)');
      // A server the user did not mark trusted has effects devx cannot know: yolo refuses its tools, as unknown programs.
      expect(results).not.toContain('Echo: y');
      if (approval === 'yolo')
        expect(results).toMatch(/denied by policy \(mcp:untrusted:plain\): mcp__plain__echo is a tool of the MCP server plain, which is not trusted/);
      else expect(results).toMatch(/not run: mcp__plain__echo needs approval \(mcp__plain__echo is a tool of the MCP server plain, which is not trusted\)/);
    }
  }, 60_000);

  it('a filesystem server rooted outside the project asks even when trusted and allowed (headless and yolo refuse it); rooted inside, its paths meet devx path policy', async () => {
    const outside = tempDir('devx-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside data');
    const project = makeProject({ 'a.txt': 'inside data\n', '.env': 'TOKEN=1\n' });
    const env = homeWith({
      mcpServers: { out: { command: FILESYSTEM, args: [outside], trust: true }, in: { command: FILESYSTEM, args: [project], trust: true } },
      permissions: { allow: ['mcp__out__*'] },
    });
    const calls = `TOOL_CALL: mcp__out__read_text_file | path=${path.join(outside, 'secret.txt')}\nTOOL_CALL: mcp__in__read_text_file | path=a.txt\nTOOL_CALL: mcp__in__read_text_file | path=.env`;
    for (const approval of ['default', 'yolo'] as const) {
      const { r, results } = await runCalls(project, env, calls, { approval });
      expect(r.status, approval).toBe('answered');
      expect(results).not.toContain('outside data');
      if (approval === 'yolo')
        expect(results).toMatch(/denied by policy \(mcp:outside-project:out\): the MCP server out works on .*outside the project.*yolo approves only/);
      else expect(results).toMatch(/not run: mcp__out__read_text_file needs approval \(the MCP server out works on .*, outside the project/);
      expect(results).toContain('inside data');
      expect(results).toMatch(/TOOL_RESULT: mcp__in__read_text_file \| status=error\n`{3,}\ndenied by policy \(path:sensitive:dotenv\)/);
    }
  }, 60_000);

  it('agents: a tools list names MCP tools (exact, Claude Code spelling, server wildcard); an agent without tools inherits the permitted ones', async () => {
    const env = homeWith({
      mcpServers: { everything: everything({ trust: true }), gone: { command: '/nonexistent/devx-mcp' } },
      permissions: { deny: ['mcp__everything__get_env'] },
    });
    const project = makeProject({
      '.devx/agents/narrow.md': '---\nname: narrow\ndescription: one MCP tool\ntools: [Read, mcp__everything__get-sum]\n---\nAdd.',
      '.devx/agents/wide.md': '---\nname: wide\ndescription: every tool\n---\nAnything.',
      '.devx/agents/star.md': '---\nname: star\ndescription: the whole server\ntools: mcp__everything__*\n---\nServer only.',
    });
    const narrow = await runCalls(project, env, 'TOOL_CALL: mcp__everything__echo | message=no', { persona: 'narrow' });
    expect(narrow.r.status).toBe('answered');
    expect(narrow.warnings.join('\n')).not.toMatch(/unknown tool/);
    expect(narrow.warnings.join('\n')).toMatch(/MCP server "gone" \(.*\) did not start: spawn \/nonexistent\/devx-mcp ENOENT/);
    expect(narrow.offered).toContain('### mcp__everything__get_sum');
    expect(narrow.offered).toContain('### read_file');
    expect(narrow.offered).not.toContain('### mcp__everything__echo');
    expect(narrow.results).toContain('mcp__everything__echo is not available to the narrow agent');
    const wide = (await runCalls(project, env, 'wide answer', { persona: 'wide' })).offered;
    expect(wide).toContain('### mcp__everything__echo');
    expect(wide).not.toContain('### mcp__everything__get_env');
    const star = (await runCalls(project, env, 'star answer', { persona: 'star' })).offered;
    expect(star).toContain('### mcp__everything__echo');
    expect(star).toContain('### mcp__everything__get_sum');
    expect(star).not.toContain('### mcp__everything__get_env');
    expect(star).not.toContain('### read_file');
  }, 60_000);
});
