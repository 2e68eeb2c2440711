// MCP pieces that need no server: arguments coerced by a JSON Schema, result summaries, names and
// rules, the policy's decisions for MCP tools, and the settings shape (the product brief's example file).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argSpecs, buildArguments, describeType } from '../../src/mcp/schemaArgs.js';
import { formatCallResult } from '../../src/mcp/formatResult.js';
import { claudeToolName, protocolToolName } from '../../src/mcp/names.js';
import { expandEnv } from '../../src/mcp/expandEnv.js';
import { toMcpTool } from '../../src/mcp/mcpTool.js';
import { parseRule, toolNameMatches, validateRule } from '../../src/policy/permissions.js';
import { loadSettings, readSettingsFile } from '../../src/config/settings.js';
import { makePolicy } from '../helpers/policy.js';
import { loadAgents } from '../../src/personas/loadAgents.js';
import { tempDir } from '../helpers/env.js';

const SCHEMA = {
  type: 'object',
  properties: {
    count: { type: 'integer' },
    ratio: { type: 'number' },
    force: { type: 'boolean' },
    mode: { enum: ['fast', 'slow'] },
    tags: { type: 'array', items: { type: 'string' } },
    options: { type: 'object' },
    maxDepth: { type: ['integer', 'null'] },
    label: { anyOf: [{ type: 'number' }, { type: 'string' }] },
    name: { type: 'string' },
  },
  required: ['name'],
};

describe('arguments by JSON Schema', () => {
  const specs = argSpecs(SCHEMA);

  it('keys are snake_case protocol keys for the server property names', () => {
    expect(specs.map((s) => [s.key, s.prop])).toContainEqual(['max_depth', 'maxDepth']);
    expect(describeType(SCHEMA.properties.mode)).toBe('one of fast | slow');
    expect(describeType(SCHEMA.properties.tags)).toBe('array (JSON)');
  });

  it('coerces numbers, integers, booleans, enums, arrays, objects, nulls and unions', () => {
    const args = buildArguments(specs, {
      name: 'x',
      count: '3',
      ratio: '0.5',
      force: 'true',
      mode: 'slow',
      tags: '["a","b"]',
      options: '{"k":1}',
      max_depth: 'null',
      label: '7',
    });
    expect(args).toEqual({ name: 'x', count: 3, ratio: 0.5, force: true, mode: 'slow', tags: ['a', 'b'], options: { k: 1 }, maxDepth: null, label: 7 });
    expect(buildArguments(specs, { name: '42', tags: 'solo', label: 'seven' })).toEqual({ name: '42', tags: ['solo'], label: 'seven' });
  });

  it('json= carries the whole object; k=v applies on top', () => {
    expect(buildArguments(specs, { json: '{"name":"a","options":{"deep":{"x":[1]}}}', count: '2' })).toEqual({
      name: 'a',
      options: { deep: { x: [1] } },
      count: 2,
    });
  });

  it('explains every problem so the model can fix the call', () => {
    expect(() => buildArguments(specs, { count: '1.5', force: 'yes', mode: 'medium' })).toThrow(
      'argument "count": expected a whole number (got "1.5"); argument "force": expected true or false (got "yes"); argument "mode": expected one of fast, slow (got "medium"); missing required argument "name"',
    );
    expect(() => buildArguments(specs, { json: '[1]' })).toThrow(/argument "json": expected a JSON object of arguments/);
  });

  it('the tool: name, alias, manual arguments, policy facts', () => {
    const t = toMcpTool(
      { name: 'My-Server', file: 'f', command: 'x' },
      { name: 'get-Thing', description: 'Gets it', inputSchema: SCHEMA, annotations: { readOnlyHint: true } },
      { server: 'My-Server', trusted: true, judgePaths: false },
      async () => ({ text: '', isError: false }),
    );
    expect(t.name).toBe('mcp__my_server__get_thing');
    expect(t.aliases).toEqual(['mcp__My-Server__get-Thing']);
    expect(t.kind).toBe('read');
    expect(t.example).toBe('TOOL_CALL: mcp__my_server__get_thing | name=...');
    expect(t.manualArgs?.find((a) => a.name === 'name')).toEqual({ name: 'name', optional: false, description: 'string' });
    expect(t.mcp).toEqual({ server: 'My-Server', trusted: true, outsideRoot: undefined });
  });
});

describe('results', () => {
  it('text as is; images, audio and resources summarised with type and size', () => {
    const r = formatCallResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: Buffer.alloc(2048).toString('base64'), mimeType: 'image/png' },
        { type: 'audio', data: Buffer.alloc(10).toString('base64'), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'abc' } },
        { type: 'resource_link', uri: 'file:///b.bin', name: 'b', mimeType: 'application/octet-stream', size: 5 },
      ],
      isError: true,
    });
    expect(r).toEqual({
      isError: true,
      text: 'hello\n[image: image/png, 2.0 KB]\n[audio: audio/wav, 10 bytes]\n[resource: file:///a.txt, text/plain, 3 characters of text]\n[resource link: file:///b.bin "b", application/octet-stream, 5 bytes]',
    });
    expect(formatCallResult({ content: [], structuredContent: { a: 1 } }).text).toBe('{\n "a": 1\n}');
  });
});

describe('names and rules', () => {
  it('protocol names are lowercase; Claude Code names keep - as written', () => {
    expect(protocolToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(claudeToolName('my.srv', 'get-sum')).toBe('mcp__my_srv__get-sum');
  });

  it('mcp__server, mcp__server__* and exact rules; invalid ones are explained', () => {
    expect(validateRule('mcp__github__*')).toBeNull();
    expect(validateRule('mcp__github')).toBeNull();
    expect(validateRule('mcp__git-hub__get-issue')).toBeNull();
    expect(validateRule('mcp__github__cre*')).toMatch(/MCP rules are/);
    const tool = { name: 'mcp__github__get_issue', aliases: ['mcp__github__get-issue'], mcp: { server: 'github', trusted: false } };
    for (const p of ['mcp__github__*', 'mcp__github', 'mcp__github__get-issue', 'mcp__github__get_issue', 'mcp__*'])
      expect(toolNameMatches(p, tool), p).toBe(true);
    for (const p of ['mcp__git', 'mcp__gitlab__*', 'mcp__github__get_issues', 'Read']) expect(toolNameMatches(p, tool), p).toBe(false);
  });

  it('${VAR}, ${VAR:-default} and $VAR expand from the environment', () => {
    expect(expandEnv('Bearer ${TOKEN} $USER ${MISSING:-none}', { TOKEN: 't0k', USER: 'me' })).toBe('Bearer t0k me none');
  });
});

describe('agent files', () => {
  it('a tools list may name MCP tools and servers; they are kept as written, without warnings', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.devx', 'agents'), { recursive: true });
    fs.writeFileSync(
      path.join(root, '.devx', 'agents', 'gh.md'),
      '---\nname: gh\ndescription: issues\ntools: [Read, mcp__github__*, mcp__jira__get-issue, mcp__docs]\n---\nx',
    );
    const loaded = loadAgents(root, tempDir(), tempDir());
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.agents.get('gh')!.tools).toEqual(['read_file', 'mcp__github__*', 'mcp__jira__get-issue', 'mcp__docs']);
  });
});

describe('policy for MCP tools', () => {
  const tool = (mcp: { trusted: boolean; outsideRoot?: string }) => ({
    name: 'mcp__gh__get_issue',
    kind: 'read' as const,
    aliases: ['mcp__gh__get-issue'],
    mcp: { server: 'gh', ...mcp },
  });
  const rules = (kind: 'allow' | 'deny', raw: string, root: string) => ({ rules: [parseRule(raw, kind, 'user')], root, home: root });

  it('ask by default, allow when trusted or allowed by a rule, deny by a rule in every mode', async () => {
    const root = tempDir();
    expect((await makePolicy(root)).decideToolCall(tool({ trusted: false }), {}).decision).toBe('ask');
    expect((await makePolicy(root)).decideToolCall(tool({ trusted: true }), {}).rule).toBe('mcp:trusted:gh');
    expect((await makePolicy(root, { permissions: rules('allow', 'mcp__gh__*', root) })).decideToolCall(tool({ trusted: false }), {}).decision).toBe('allow');
    for (const mode of ['default', 'yolo', 'auto-edit', 'plan'] as const) {
      expect((await makePolicy(root, { mode, permissions: rules('deny', 'mcp__gh', root) })).decideToolCall(tool({ trusted: true }), {}).decision).toBe('deny');
    }
  });

  it('a server working outside the project asks even when trusted and allowed; yolo refuses it', async () => {
    const root = tempDir();
    const d = (await makePolicy(root, { permissions: rules('allow', 'mcp__gh__*', root) })).decideToolCall(tool({ trusted: true, outsideRoot: '/srv' }), {});
    expect(d).toMatchObject({ decision: 'ask', rule: 'mcp:outside-project:gh' });
    expect((await makePolicy(root, { mode: 'yolo' })).decideToolCall(tool({ trusted: true, outsideRoot: '/srv' }), {}).decision).toBe('deny');
  });
});

describe('settings', () => {
  it("the product brief's example settings file (permissions, mcpServers, defaultAgent) loads", () => {
    // Copied verbatim from the product brief's "Config Shapes".
    const example = fs.readFileSync(path.join(__dirname, '../fixtures/seed001-settings.json'), 'utf8');
    const home = tempDir();
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.devx'));
    fs.writeFileSync(path.join(root, '.devx', 'settings.json'), example);
    expect(readSettingsFile(path.join(root, '.devx', 'settings.json'))).toMatchObject({
      defaultAgent: 'code-reviewer',
      mcpServers: { example: { command: 'node', trust: true } },
    });
    const trusted = loadSettings({ devxHome: home, projectRoot: root, env: {}, trusted: true });
    expect(trusted.defaultAgent).toBe('code-reviewer');
    expect(trusted.mcpServers).toEqual([
      { name: 'example', file: path.join(root, '.devx', 'settings.json'), command: 'node', args: ['dist/server.js'], trust: true },
    ]);
    expect(trusted.permissionRules.map((r) => r.raw)).toEqual(['Bash(npm run test:*)', 'Read(./secrets/**)']);
    const untrusted = loadSettings({ devxHome: home, projectRoot: root, env: {} });
    expect(untrusted.mcpServers).toEqual([]);
    expect(untrusted.warnings.join('\n')).toContain("this project's MCP servers (example) run programs; they are not started until you trust the project");
  });

  it('project servers override user servers of the same name; the project default agent wins', () => {
    const home = tempDir();
    const root = tempDir();
    fs.writeFileSync(
      path.join(home, 'settings.json'),
      JSON.stringify({ defaultAgent: 'a', mcpServers: { s: { url: 'http://127.0.0.1:1/mcp' }, u: { command: 'x' } } }),
    );
    fs.mkdirSync(path.join(root, '.devx'));
    fs.writeFileSync(path.join(root, '.devx', 'settings.json'), JSON.stringify({ defaultAgent: 'b', mcpServers: { s: { command: 'y' } } }));
    const s = loadSettings({ devxHome: home, projectRoot: root, env: {}, trusted: true });
    expect(s.defaultAgent).toBe('b');
    expect(s.mcpServers.map((m) => [m.name, m.command ?? m.url])).toEqual([
      ['s', 'y'],
      ['u', 'x'],
    ]);
  });
});
