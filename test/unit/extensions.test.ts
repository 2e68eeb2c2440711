// Extensions and plugins without a process: both manifest formats (variables, default folders, bad input named
// by file and key), marketplaces, the tree check before a copy, the record, and what the loaders (settings,
// commands, skills, agents) take from an enabled extension. The binary and real servers: test/e2e/extensions.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGeminiManifest, readGeminiBundle } from '../../src/extensions/geminiManifest.js';
import { readClaudeBundle } from '../../src/extensions/claudeManifest.js';
import { chooseFormat } from '../../src/extensions/readBundle.js';
import { locatePlugin, readMarketplace } from '../../src/extensions/marketplace.js';
import { BundleRefused, copyTree, scanTree, TREE_LIMITS } from '../../src/extensions/copyTree.js';
import { commitInstall, planInstall, setExtensionEnabled, sweepAbandonedCopies, uninstallExtension } from '../../src/extensions/install.js';
import { loadExtensions } from '../../src/extensions/loadExtensions.js';
import { excludeRule } from '../../src/extensions/excludeTools.js';
import { fillVariables } from '../../src/extensions/variables.js';
import { ManifestError } from '../../src/extensions/types.js';
import { loadSettings } from '../../src/config/settings.js';
import { loadCustomCommands } from '../../src/commands/loadCommands.js';
import { customCommandsFor, findCustomCommand, nameThatRuns } from '../../src/runtime/customCommands.js';
import { loadSkills } from '../../src/personas/loadSkills.js';
import { loadAgents } from '../../src/personas/loadAgents.js';
import { tempDir } from '../helpers/env.js';

function write(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const json = (v: unknown) => JSON.stringify(v);

/** The ManifestError a call throws, as [file, key, reason]. */
function manifestError(fn: () => unknown): [string, string, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ManifestError) return [err.file, err.key, err.reason];
    throw err;
  }
  throw new Error('no ManifestError');
}

/** Installs `dir` into `devxHome` as the CLI would after a yes. */
function install(devxHome: string, dir: string, workspace = '/work'): string {
  return commitInstall(planInstall({ source: dir, cwd: workspace, devxHome }), devxHome);
}

describe('Gemini CLI extensions', () => {
  it('fills ${extensionPath}, ${workspacePath} and ${/}, leaves other variables, and finds its commands, skills, agents, context and hooks', () => {
    const dir = write(tempDir('devx-ext-'), {
      'gemini-extension.json': json({
        name: 'gcp',
        version: '2.0.0',
        description: 'Cloud tools',
        mcpServers: { deployer: { command: 'node', args: ['${extensionPath}${/}srv.js', '--root=${workspacePath}'], env: { TOKEN: '${GCP_TOKEN}' } } },
        excludeTools: ['run_shell_command(git push)', 'replace'],
      }),
      'commands/deploy.toml': 'prompt = "deploy"\n',
      'commands/gcs/sync.toml': 'prompt = "sync"\n',
      'commands/bad name.toml': 'prompt = "x"\n',
      'skills/audit/SKILL.md': '---\nname: audit\ndescription: Audit\n---\nbody\n',
      'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n',
      'GEMINI.md': 'context\n',
      'hooks/hooks.json': json({
        hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: '${extensionPath}/check.sh' }] }] },
      }),
    });
    const b = readGeminiBundle(dir, '/projects/shop');
    expect(b).toMatchObject({
      name: 'gcp',
      version: '2.0.0',
      description: 'Cloud tools',
      format: 'gemini',
      manifestFile: path.join(dir, 'gemini-extension.json'),
    });
    expect(b.mcpServers).toEqual([
      {
        name: 'deployer',
        config: { command: 'node', args: [`${dir}/srv.js`, '--root=/projects/shop'], env: { TOKEN: '${GCP_TOKEN}' } },
        file: path.join(dir, 'gemini-extension.json'),
      },
    ]);
    expect(b.commands.map((c) => c.name)).toEqual(['deploy', 'gcs:sync']);
    expect(b.issues).toEqual([
      `${path.join(dir, 'commands', 'bad name.toml')}: its name (the path under the commands folder) may hold only letters, digits, ".", "-" and "_"; skipped`,
    ]);
    expect(b.skills).toEqual([path.join(dir, 'skills', 'audit')]);
    expect(b.agents).toEqual([path.join(dir, 'agents', 'reviewer.md')]);
    expect(b.contextFiles).toEqual([path.join(dir, 'GEMINI.md')]);
    expect(b.hooks).toEqual([
      {
        value: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: `${dir}/check.sh` }] }] },
        file: path.join(dir, 'hooks', 'hooks.json'),
        dialect: 'gemini',
      },
    ]);
    expect(b.excludeTools).toEqual(['run_shell_command(git push)', 'replace']);
  });

  it('a manifest without name or version, with a bad name or a wrong type, or not JSON, names its file and key', () => {
    const file = '/x/gemini-extension.json';
    expect(manifestError(() => parseGeminiManifest({ version: '1' }, file))).toEqual([file, 'name', expect.stringContaining('is required')]);
    expect(manifestError(() => parseGeminiManifest({ name: 'a' }, file))).toEqual([file, 'version', expect.stringContaining('is required')]);
    expect(manifestError(() => parseGeminiManifest({ name: '../etc', version: '1' }, file))).toEqual([
      file,
      'name',
      expect.stringContaining('letters, digits'),
    ]);
    expect(manifestError(() => parseGeminiManifest({ name: 'a', version: '1', contextFileName: 3 }, file))).toEqual([
      file,
      'contextFileName',
      'must be a file name or a list of them',
    ]);
    expect(manifestError(() => parseGeminiManifest({ name: 'a', version: '1', excludeTools: 'x' }, file))[1]).toBe('excludeTools');
    const dir = write(tempDir('devx-ext-'), { 'gemini-extension.json': '{ "name": ' });
    expect(manifestError(() => readGeminiBundle(dir, '/w'))).toEqual([path.join(dir, 'gemini-extension.json'), '', expect.stringMatching(/^not valid JSON/)]);
  });

  it('a context file named outside the extension, or missing, is an issue; the rest loads', () => {
    const dir = write(tempDir('devx-ext-'), { 'gemini-extension.json': json({ name: 'a', version: '1', contextFileName: ['../../etc/passwd', 'NOPE.md'] }) });
    const b = readGeminiBundle(dir, '/w');
    expect(b.contextFiles).toEqual([]);
    expect(b.issues).toEqual([
      `${dir}/gemini-extension.json: "contextFileName": ../../etc/passwd leads outside the extension; it is not read`,
      `${dir}/gemini-extension.json: "contextFileName": NOPE.md is not in the extension`,
    ]);
  });

  it('variables are filled in strings at any depth, never in keys that would reach a prototype', () => {
    const filled = fillVariables(JSON.parse('{"a":["${x}/y",{"b":"${x}${unknown}"}],"__proto__":{"polluted":"${x}"}}'), { x: 'X' });
    expect(filled).toEqual({ a: ['X/y', { b: 'X${unknown}' }] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Claude Code plugins', () => {
  it('names commands /<plugin>:<command>, servers plugin_<plugin>_<server>, and fills ${CLAUDE_PLUGIN_ROOT} (also given as a variable)', () => {
    const dir = write(tempDir('devx-plugin-'), {
      '.claude-plugin/plugin.json': json({
        name: 'notes',
        version: '0.3.0',
        commands: ['./extra/today.md'],
        mcpServers: { inline: { url: 'http://127.0.0.1:9/mcp' } },
        hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/fmt.sh' }] }] },
      }),
      'commands/summarize.md': 'Summarize $ARGUMENTS\n',
      'commands/deep/dive.md': 'Dive\n',
      'extra/today.md': 'Today\n',
      'agents/scribe.md': '---\nname: scribe\ndescription: Writes\n---\nWrite.\n',
      'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: PDFs\n---\n',
      '.mcp.json': json({ everything: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } }),
      'hooks/hooks.json': json({ description: 'checks', hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo ${CLAUDE_PLUGIN_ROOT}' }] }] } }),
    });
    const b = readClaudeBundle(dir);
    expect(b).toMatchObject({ name: 'notes', version: '0.3.0', format: 'claude', env: { CLAUDE_PLUGIN_ROOT: dir } });
    expect(b.commands.map((c) => c.name)).toEqual(['notes:deep:dive', 'notes:summarize', 'notes:today']);
    expect(b.mcpServers).toEqual([
      {
        name: 'plugin_notes_everything',
        config: { command: 'node', args: [`${dir}/server.mjs`], env: { CLAUDE_PLUGIN_ROOT: dir } },
        file: path.join(dir, '.mcp.json'),
      },
      { name: 'plugin_notes_inline', config: { url: 'http://127.0.0.1:9/mcp' }, file: path.join(dir, '.claude-plugin', 'plugin.json') },
    ]);
    expect(b.hooks.map((h) => [h.value, path.relative(dir, h.file)])).toEqual([
      [{ SessionStart: [{ hooks: [{ type: 'command', command: `echo ${dir}` }] }] }, 'hooks/hooks.json'],
      [{ PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: `${dir}/fmt.sh` }] }] }, '.claude-plugin/plugin.json'],
    ]);
    expect(b.agents).toEqual([path.join(dir, 'agents', 'scribe.md')]);
    expect(b.skills).toEqual([path.join(dir, 'skills', 'pdf')]);
    expect(b.issues).toEqual([]);
  });

  it('a broken .mcp.json or a path out of the plugin is an issue naming the file; a missing or bad plugin.json is a ManifestError', () => {
    const dir = write(tempDir('devx-plugin-'), {
      '.claude-plugin/plugin.json': json({ name: 'p', agents: '../../outside' }),
      '.mcp.json': '{ nope',
      'commands/a.md': 'A\n',
    });
    const b = readClaudeBundle(dir);
    expect(b.commands.map((c) => c.name)).toEqual(['p:a']);
    expect(b.mcpServers).toEqual([]);
    expect(b.issues).toEqual([
      expect.stringMatching(new RegExp(`^${dir}/\\.mcp\\.json: not valid JSON .*; skipped$`)),
      `${dir}/.claude-plugin/plugin.json: "agents": ../../outside leads outside the plugin; skipped`,
    ]);
    const none = write(tempDir('devx-plugin-'), { 'commands/a.md': 'A\n' });
    expect(manifestError(() => readClaudeBundle(none))[2]).toContain('not found');
    // A marketplace entry may name a plugin that has no plugin.json.
    expect(readClaudeBundle(none, { name: 'bare', version: '1.0.0', file: '/m/marketplace.json' })).toMatchObject({
      name: 'bare',
      manifestFile: '/m/marketplace.json',
      commands: [{ name: 'bare:a' }],
    });
    const badName = write(tempDir('devx-plugin-'), { '.claude-plugin/plugin.json': json({ name: 'a b', version: 1 }) });
    expect(manifestError(() => readClaudeBundle(badName))[1]).toBe('name');
  });

  it('a folder with both manifests is read as a Gemini CLI extension unless --format says otherwise; one with neither is refused', () => {
    const both = write(tempDir('devx-both-'), {
      'gemini-extension.json': json({ name: 'a', version: '1' }),
      '.claude-plugin/plugin.json': json({ name: 'a' }),
    });
    expect(chooseFormat(both)).toBe('gemini');
    expect(chooseFormat(both, 'claude')).toBe('claude');
    const neither = tempDir('devx-none-');
    expect(manifestError(() => chooseFormat(neither))[2]).toMatch(/has neither gemini-extension\.json .* nor \.claude-plugin\/plugin\.json/);
  });
});

describe('marketplaces', () => {
  it('locates a plugin by a path in the marketplace (or under pluginRoot), a GitHub repo, a git URL or a folder of one; refuses other kinds and paths out', () => {
    const dir = write(tempDir('devx-market-'), {
      '.claude-plugin/marketplace.json': json({
        name: 'market',
        owner: { name: 'T' },
        metadata: { pluginRoot: './plugins' },
        plugins: [
          { name: 'a', source: './plugins/a' },
          { name: 'b', source: 'b' },
          { name: 'c', source: { source: 'github', repo: 'acme/c', ref: 'v1' } },
          { name: 'd', source: { source: 'url', url: 'https://git.example.com/d.git', sha: 'abcdef1' } },
          { name: 'e', source: { source: 'git-subdir', url: 'https://git.example.com/mono.git', path: 'plugins/e' } },
          { name: 'f', source: { source: 'npm', package: 'f' } },
          { name: 'g', source: '../../outside' },
        ],
      }),
    });
    const file = path.join(dir, '.claude-plugin', 'marketplace.json');
    const m = readMarketplace(file);
    const at = (name: string) =>
      locatePlugin(
        m,
        m.plugins.find((p) => p.name === name)!,
        dir,
        file,
      );
    expect(at('a')).toEqual({ kind: 'dir', dir: path.join(dir, 'plugins', 'a') });
    expect(at('b')).toEqual({ kind: 'dir', dir: path.join(dir, 'plugins', 'b') });
    expect(at('c')).toEqual({ kind: 'git', url: 'https://github.com/acme/c.git', ref: 'v1' });
    expect(at('d')).toEqual({ kind: 'git', url: 'https://git.example.com/d.git', sha: 'abcdef1' });
    expect(at('e')).toEqual({ kind: 'git', url: 'https://git.example.com/mono.git', subdir: 'plugins/e' });
    expect(manifestError(() => at('f'))).toEqual([file, 'plugins.5.source.source', expect.stringContaining('"npm" plugins are not something devx installs')]);
    expect(manifestError(() => at('g'))).toEqual([file, 'plugins.6.source', '../../outside leads outside the marketplace']);
  });

  it('a marketplace file without plugins, or with a GitHub source that is no owner/repo, names the key', () => {
    const file = path.join(write(tempDir('devx-market-'), { 'm.json': json({ name: 'm', owner: { name: 'T' } }) }), 'm.json');
    expect(manifestError(() => readMarketplace(file))).toEqual([file, 'plugins', 'must be a list of plugins']);
    fs.writeFileSync(file, json({ name: 'm', plugins: [{ name: 'x', source: { source: 'github', repo: 'nope' } }] }));
    expect(manifestError(() => readMarketplace(file))[1]).toBe('plugins.0.source');
  });
});

describe('installing: the tree is checked whole, then copied', () => {
  it('a link inside the bundle is copied as a link within the copy; one out of it, or a tree past the limits, is refused', () => {
    const src = write(tempDir('devx-tree-'), { 'a/file.txt': 'A', 'b.txt': 'B', '.git/config': '[core]' });
    fs.symlinkSync('../b.txt', path.join(src, 'a', 'link.txt'));
    fs.symlinkSync(path.join(src, 'a'), path.join(src, 'dirlink'));
    const entries = scanTree(src);
    expect(entries.map((e) => [e.rel, e.kind, e.target])).toEqual([
      ['a', 'dir', undefined],
      ['a/file.txt', 'file', undefined],
      ['a/link.txt', 'link', '../b.txt'],
      ['b.txt', 'file', undefined],
      ['dirlink', 'link', 'a'],
    ]);
    const dest = path.join(tempDir('devx-copy-'), 'x');
    copyTree(src, entries, dest);
    expect(fs.readFileSync(path.join(dest, 'a', 'link.txt'), 'utf8')).toBe('B');
    expect(fs.realpathSync(path.join(dest, 'dirlink'))).toBe(path.join(fs.realpathSync(dest), 'a'));
    expect(fs.existsSync(path.join(dest, '.git'))).toBe(false);

    const outside = write(tempDir('devx-outside-'), { 'secret.txt': 'S' });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(src, 'a', 'leak.txt'));
    expect(() => scanTree(src)).toThrow(
      new BundleRefused(`${src}/a/leak.txt is a link to ${outside}/secret.txt, outside the bundle; a bundle may link only to its own files`),
    );
    fs.rmSync(path.join(src, 'a', 'leak.txt'));
    expect(() => scanTree(src, { ...TREE_LIMITS, maxFiles: 1 })).toThrow('the bundle has more than 1 files');
    expect(() => scanTree(src, { ...TREE_LIMITS, maxBytes: 1 })).toThrow('the bundle is larger than');
    expect(() => scanTree(src, { ...TREE_LIMITS, maxDepth: 0 })).toThrow('is nested more than 0 folders deep');
  });

  it('install, disable and uninstall change only the copy and the record; a second install of a name is refused', () => {
    const devxHome = tempDir('devx-home-');
    const src = write(path.join(tempDir('devx-src-'), 'tool'), { 'gemini-extension.json': json({ name: 'tool', version: '1.0.0' }), 'GEMINI.md': 'ctx\n' });
    const dir = install(devxHome, src);
    expect(dir).toBe(path.join(devxHome, 'extensions', 'tool'));
    expect(fs.readdirSync(devxHome).sort()).toEqual(['extensions', 'extensions.json']);
    expect(() => planInstall({ source: src, cwd: '/', devxHome })).toThrow('an extension named "tool" is already installed; uninstall it first');
    expect(setExtensionEnabled(devxHome, 'tool', false)).toBe(true);
    expect(loadExtensions(devxHome, '/w').bundles).toEqual([]);
    expect(setExtensionEnabled(devxHome, 'tool', true)).toBe(true);
    expect(loadExtensions(devxHome, '/w').bundles.map((b) => b.name)).toEqual(['tool']);
    uninstallExtension(devxHome, 'tool');
    expect(fs.readdirSync(devxHome)).toEqual([]);
    expect(() => uninstallExtension(devxHome, 'tool')).toThrow('no extension named "tool" is installed (none is installed)');
  });

  it("the next install removes the half-made copy of an install killed mid-copy, never a live install's", () => {
    const devxHome = tempDir('devx-home-');
    const root = path.join(devxHome, 'extensions');
    // A process ID above Linux's largest (pid_max is at most 2^22): no process has it.
    const dead = write(path.join(root, `.installing-${2 ** 22 + 7}-old-0a0b0c0d`), { 'gemini-extension.json': '{}' });
    const live = write(path.join(root, `.installing-${process.pid}-busy-01020304`), { 'gemini-extension.json': '{}' });
    install(devxHome, write(path.join(tempDir('devx-src-'), 'tool'), { 'gemini-extension.json': json({ name: 'tool', version: '1.0.0' }) }));
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    expect(fs.readdirSync(root).sort()).toEqual([path.basename(live), 'tool']);
    sweepAbandonedCopies(path.join(devxHome, 'nowhere'));
  });
});

describe('what the loaders take from enabled extensions', () => {
  function setup() {
    const devxHome = tempDir('devx-home-');
    const userHome = tempDir('devx-user-');
    const root = tempDir('devx-proj-');
    const weather = write(path.join(tempDir('devx-src-'), 'weather'), {
      'gemini-extension.json': json({
        name: 'weather',
        version: '1.0.0',
        mcpServers: { forecast: { command: 'node', args: ['${extensionPath}/s.js'], trust: true }, broken: { args: [] } },
        excludeTools: ['run_shell_command(rm -rf)', 'google_web_search'],
      }),
      'commands/greet.toml': 'prompt = "Hello from weather"\n',
      'commands/help.toml': 'prompt = "weather help"\n',
      'commands/broken.toml': 'prompt = 3\n',
      'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: the extension PDF skill\n---\n',
      'agents/forecaster.md': '---\nname: forecaster\ndescription: Forecasts\n---\nForecast.\n',
    });
    const notes = write(path.join(tempDir('devx-src-'), 'notes'), {
      '.claude-plugin/plugin.json': json({ name: 'notes', version: '0.1.0' }),
      'commands/greet.md': 'Hello from notes\n',
      'skills/pdf/SKILL.md': '---\nname: pdf\ndescription: the plugin PDF skill\n---\n',
      'hooks/hooks.json': json({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo ${CLAUDE_PLUGIN_ROOT}' }] }] } }),
    });
    install(devxHome, weather, root);
    install(devxHome, notes, root);
    // The user's own command and skill of the same names.
    write(userHome, {
      '.gemini/commands/greet.toml': 'prompt = "Hello from you"\n',
      '.claude/skills/pdf/SKILL.md': '---\nname: pdf\ndescription: your PDF skill\n---\n',
    });
    return { devxHome, userHome, root };
  }

  it('settings: servers (never self-trusted) under the user scope, hooks with their variables, excludeTools as deny rules, warnings naming file and key', () => {
    const { devxHome, userHome, root } = setup();
    const s = loadSettings({ devxHome, projectRoot: root, env: { HOME: userHome }, trusted: false });
    const copy = path.join(devxHome, 'extensions', 'weather');
    expect(s.mcpServers).toEqual([{ command: 'node', args: [`${copy}/s.js`], name: 'forecast', file: path.join(copy, 'gemini-extension.json'), ownDir: copy }]);
    expect(s.warnings).toContain(
      `extension "weather": MCP server "broken" in ${copy}/gemini-extension.json: entry: needs "command" (a stdio server) or "url" (an HTTP server); skipped`,
    );
    const notesDir = path.join(devxHome, 'extensions', 'notes');
    expect(s.hooks).toEqual([
      expect.objectContaining({ event: 'SessionStart', command: `echo ${notesDir}`, dialect: 'claude', env: { CLAUDE_PLUGIN_ROOT: notesDir } }),
    ]);
    expect(s.permissionRules.filter((r) => r.raw.includes('excludeTools'))).toEqual([
      { raw: 'Bash(rm -rf:*) (excludeTools of extension weather)', kind: 'deny', source: 'user', tool: 'Bash', pattern: 'rm -rf:*' },
    ]);
    expect(s.warnings).toContain('extension "weather": excludeTools names google_web_search, a tool devx does not have; nothing to leave out');
    // A server of the user's own of the same name wins.
    write(devxHome, { 'settings.json': json({ mcpServers: { forecast: { command: 'mine' } } }) });
    const mine = loadSettings({ devxHome, projectRoot: root, env: { HOME: userHome }, trusted: false });
    expect(mine.mcpServers.map((m) => m.command)).toEqual(['mine']);
    expect(mine.warnings).toContain(
      `${copy}/gemini-extension.json: MCP server "forecast" is not started: ${devxHome}/settings.json has a server of that name, which wins`,
    );
  });

  it('commands: a Gemini CLI command whose name is taken runs as /<extension>:<name>, a plugin command as /<plugin>:<name>; a broken file is an error', () => {
    const { devxHome, userHome, root } = setup();
    const loaded = loadCustomCommands({ root, home: userHome, devxHome, trusted: false });
    const byName = Object.fromEntries([...loaded.commands.values()].map((c) => [nameThatRuns(c), [c.scope, c.extension, c.body.trim()]]));
    expect(byName).toEqual({
      greet: ['user', undefined, 'Hello from you'],
      'weather:greet': ['extension', 'weather', 'Hello from weather'],
      'weather:help': ['extension', 'weather', 'weather help'],
      'notes:greet': ['extension', 'notes', 'Hello from notes'],
    });
    expect(loaded.notes?.map((n) => n.message)).toEqual([
      `/greet of extension weather runs as /weather:greet: ${userHome}/.gemini/commands/greet.toml has the name /greet`,
    ]);
    expect(loaded.errors.map((e) => [path.basename(e.file), e.message])).toEqual([['broken.toml', '"prompt" is required (a string)']]);
    // devx's own /help wins (said as for any custom command); the extension's runs as /weather:help.
    const said = customCommandsFor({ root, home: userHome, devxHome, trusted: false }, []).fileWarnings.map((w) => w.text);
    expect(said).toContain(`/help (${devxHome}/extensions/weather/commands/help.toml) has the name of a devx command, which wins; run it as /weather:help`);
    expect(findCustomCommand(loaded, '/help')).toBeNull();
    expect(findCustomCommand(loaded, '/weather:help me')).toMatchObject({ cmd: { name: 'help', extension: 'weather' }, args: 'me' });
    expect(findCustomCommand(loaded, '/notes:greet')?.cmd.body.trim()).toBe('Hello from notes');
  });

  it("skills and agents: a plugin's skill is <plugin>:<skill>, an extension's yields to the user's own; an extension's agent loads as the user's", () => {
    const { devxHome, userHome, root } = setup();
    const skills = loadSkills({ root, home: userHome, devxHome, trusted: false });
    expect([...skills.skills.values()].map((s) => [s.name, s.description, s.extension])).toEqual([
      ['pdf', 'your PDF skill', undefined],
      ['notes:pdf', 'the plugin PDF skill', 'notes'],
    ]);
    expect(skills.errors.map((e) => e.message)).toEqual([`the skill "pdf" of ${userHome}/.claude/skills/pdf/SKILL.md has its name, and wins`]);
    const agents = loadAgents(root, userHome, devxHome);
    expect(agents.agents.get('forecaster')).toMatchObject({
      scope: 'user',
      format: 'devx',
      file: path.join(devxHome, 'extensions', 'weather', 'agents', 'forecaster.md'),
    });
  });

  it('a broken extension is a warning naming its file and key; the others still load', () => {
    const { devxHome, root } = setup();
    fs.writeFileSync(path.join(devxHome, 'extensions', 'weather', 'gemini-extension.json'), json({ name: 'weather' }));
    const loaded = loadExtensions(devxHome, root);
    expect(loaded.bundles.map((b) => b.name)).toEqual(['notes']);
    expect(loaded.warnings).toEqual([
      `extension "weather" was not loaded: ${devxHome}/extensions/weather/gemini-extension.json: "version": is required (a string, e.g. "1.0.0")`,
    ]);
    fs.writeFileSync(path.join(devxHome, 'extensions.json'), '{');
    expect(loadExtensions(devxHome, root)).toEqual({
      bundles: [],
      warnings: [expect.stringMatching(/extensions\.json: not valid JSON .*; no extension was loaded/)],
    });
  });

  it("excludeTools: Gemini CLI's tool names in devx's, a shell command prefix as a Bash rule", () => {
    expect(excludeRule('run_shell_command')).toEqual({ tool: 'run_command' });
    expect(excludeRule('run_shell_command(git push)')).toEqual({ tool: 'Bash', pattern: 'git push:*' });
    expect(excludeRule('replace')).toEqual({ tool: 'edit_file' });
    expect(excludeRule('write_file')).toEqual({ tool: 'write_file' });
    expect(excludeRule('google_web_search')).toBeNull();
    expect(excludeRule('mcp__github__create_issue')).toEqual({ tool: 'mcp__github__create_issue' });
  });
});
