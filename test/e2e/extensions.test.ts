// Extensions and plugins end to end: a Gemini CLI extension from a folder and a Claude Code plugin from a local
// marketplace, installed by the real binary into a temp HOME, each bundling a real MCP server (server-everything,
// started through a file of the bundle), a command, a context file or a hook. The first run's model is the real
// gemini binary against the fake API; the later runs, after disable and uninstall, run in this process with a
// scripted model. What reached the model (prompt, manual, tool results) is asserted.
// Uninstalling leaves HOME byte for byte as it was; a bundle that is refused leaves nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';
import { exitOf, usePtySessions } from '../helpers/pty.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});

const EVERYTHING = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** The bundle's own server program: it starts server-everything over stdio. */
const SERVER = `await import(${JSON.stringify(pathToFileURL(EVERYTHING).href)});\n`;

function write(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** A Gemini CLI extension: an MCP server started from its own folder, a TOML command, a context file, excludeTools. */
function weatherExtension(): string {
  return write(path.join(tempDir('devx-ext-src-'), 'weather'), {
    'gemini-extension.json': JSON.stringify({
      name: 'weather',
      version: '1.2.0',
      mcpServers: { everything: { command: process.execPath, args: ['${extensionPath}${/}server.mjs', 'stdio'], cwd: '${extensionPath}', trust: true } },
      contextFileName: 'WEATHER.md',
      excludeTools: ['run_shell_command(rm -rf)'],
    }),
    'server.mjs': SERVER,
    'commands/forecast.toml': 'description = "The forecast"\nprompt = "FORECAST-MARK: the forecast for {{args}}"\n',
    'WEATHER.md': 'WEATHER-CONTEXT-MARK: temperatures are in Celsius.\n',
  });
}

/** A local marketplace listing one Claude Code plugin: a Markdown command, .mcp.json, a SessionStart hook. */
function notesMarketplace(): string {
  return write(tempDir('devx-market-'), {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'market',
      owner: { name: 'Tester' },
      plugins: [{ name: 'notes', source: './plugins/notes', description: 'Notes tools' }],
    }),
    'plugins/notes/.claude-plugin/plugin.json': JSON.stringify({ name: 'notes', version: '0.3.0', description: 'Notes tools' }),
    'plugins/notes/commands/summarize.md': '---\ndescription: Summarize notes\n---\nNOTES-MARK: summarize $ARGUMENTS\n',
    'plugins/notes/.mcp.json': JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs', 'stdio'] } },
    }),
    'plugins/notes/server.mjs': SERVER,
    'plugins/notes/hooks/hooks.json': JSON.stringify({
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: 'test -f "${CLAUDE_PLUGIN_ROOT}/server.mjs" && echo "HOOK-MARK root=$CLAUDE_PLUGIN_ROOT"' }] }],
      },
    }),
  });
}

/** Every path under `dir` with its kind and its bytes' hash (a link: its target). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = 'dir';
        walk(p);
      } else out[rel] = `file ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

/** What devx's runs keep in HOME on their own (gemini's sealed home, the owner id, launch plans, the empty folder the user's servers start in outside an untrusted project): no extension's. */
const RUN_STATE = /^\.devx\/(gemini-home|owner-id|run|outside-project|cache\/gemini)(\/|$)/;
const withoutRunState = (s: Record<string, string>) => Object.fromEntries(Object.entries(s).filter(([k]) => !RUN_STATE.test(k)));

/** Makes `dir` a git repository holding its files; returns its file:// URL. */
function commitAll(dir: string): string {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'init');
  return pathToFileURL(dir).href;
}

function userSettings(settings: unknown): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
}

const inPty = usePtySessions();
const extensions = (args: string[], cwd: string) => runDevx(['extensions', ...args], { cwd, env: fakeEnv(fake, home) });

describe('extensions and plugins', () => {
  it('a Gemini CLI extension and a Claude Code plugin from a marketplace bring their servers, commands, context and hooks; disable, enable, uninstall', async () => {
    // The user's policy holds over what extensions bring: their servers' tools are allowed here, one tool denied.
    userSettings({ permissions: { allow: ['mcp__everything', 'mcp__plugin_notes_everything'], deny: ['mcp__everything__get_tiny_image'] } });
    const project = makeProject({ 'README.md': 'hi\n' });
    const before = snapshot(home);

    const weather = weatherExtension();
    const inst = await extensions(['install', weather, '--consent'], project);
    expect(inst.code, inst.stderr).toBe(0);
    // Everything it runs is named before it is copied, with its variables filled for the copy.
    const copy = path.join(home, '.devx', 'extensions', 'weather');
    expect(inst.stdout).toContain('Installing weather 1.2.0 (Gemini CLI extension)');
    expect(inst.stdout).toContain(`everything: ${process.execPath} ${copy}/server.mjs stdio (in ${copy})`);
    expect(inst.stdout).toMatch(/commands:\n {4}\/forecast/);
    expect(inst.stdout).toMatch(/context \(sent to the model with every prompt\):\n {4}WEATHER\.md/);
    expect(fs.readFileSync(path.join(copy, 'WEATHER.md'), 'utf8')).toContain('WEATHER-CONTEXT-MARK');
    expect(fs.lstatSync(copy).isSymbolicLink()).toBe(false);

    const market = notesMarketplace();
    const added = await extensions(['marketplace', 'add', market], project);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('notes  Notes tools');
    const plugin = await extensions(['install', 'notes@market', '--consent'], project);
    expect(plugin.code, plugin.stderr).toBe(0);
    expect(plugin.stdout).toContain('Installing notes 0.3.0 (Claude Code plugin)');
    expect(plugin.stdout).toContain(`plugin_notes_everything: ${process.execPath} ${home}/.devx/extensions/notes/server.mjs stdio`);
    expect(plugin.stdout).toContain(`SessionStart: test -f "${home}/.devx/extensions/notes/server.mjs"`);
    expect(plugin.stdout).toMatch(/commands:\n {4}\/notes:summarize/);

    const list = await extensions(['list', '--json'], project);
    expect(list.code, list.stderr).toBe(0);
    expect(
      (JSON.parse(list.stdout) as { name: string; version: string; format: string; enabled: boolean; source: string; brings: { commands: string[] } }[]).map(
        (e) => [e.name, e.version, e.format, e.enabled, e.source, e.brings.commands],
      ),
    ).toEqual([
      ['weather', '1.2.0', 'gemini', true, weather, ['/forecast']],
      ['notes', '0.3.0', 'claude', true, 'notes@market', ['/notes:summarize']],
    ]);

    // One run: the extension's command, both bundles' tools, the extension's context and excludeTools, the plugin's hook.
    fake.push({
      text: [
        'TOOL_CALL: mcp__everything__echo | message=from the weather extension',
        'TOOL_CALL: mcp__plugin_notes_everything__get_sum | a=2 | b=3',
        'TOOL_CALL: run_command | cmd=rm -rf build',
      ].join('\n'),
    });
    fake.push({ text: 'Sunny, 21 degrees.' });
    const a = await runDevx(['run', '/forecast Paris'], { cwd: project, env: fakeEnv(fake, home) });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout.trim()).toBe('Sunny, 21 degrees.');
    const first = fake.modelCalls[0];
    expect(first.promptText).toContain('FORECAST-MARK: the forecast for Paris');
    expect(first.promptText).toMatch(/# Context from extension weather \(WEATHER\.md\)\nWEATHER-CONTEXT-MARK: temperatures are in Celsius\./);
    expect(first.promptText).toContain(`HOOK-MARK root=${home}/.devx/extensions/notes`);
    expect(first.systemText).toContain('### mcp__everything__echo');
    expect(first.systemText).toContain('### mcp__plugin_notes_everything__get_sum');
    expect(first.systemText).not.toContain('mcp__everything__get_tiny_image');
    const results = fake.modelCalls[1].promptText;
    expect(results).toMatch(/TOOL_RESULT: mcp__everything__echo \| status=ok\n`{3,}\nEcho: from the weather extension\n/);
    expect(results).toMatch(/TOOL_RESULT: mcp__plugin_notes_everything__get_sum \| status=ok\n`{3,}\nThe sum of 2 and 3 is 5\.\n/);
    expect(results).toMatch(/TOOL_RESULT: run_command \| status=error\n`{3,}\n.*Bash\(rm -rf:\*\) \(excludeTools of extension weather\)/);
    expect(a.stderr).toContain('running the hooks of extension "notes" (SessionStart, in hooks/hooks.json)');

    // Disabled: its files stay, nothing of it loads; the plugin's command still runs.
    expect((await extensions(['disable', 'weather'], project)).code).toBe(0);
    expect(fs.existsSync(path.join(copy, 'gemini-extension.json'))).toBe(true);
    // This run and the last one here, with a scripted model: what reaches the model is the subject, and the
    // run above took the real gemini.
    const b = await runScripted(['run', '/notes:summarize today'], { cwd: project, home, replies: ['Summarized.'] });
    expect(b.code, b.stderr).toBe(0);
    const second = b.model.requests[0];
    expect(second.prompt).toContain('NOTES-MARK: summarize today');
    expect(second.prompt).not.toContain('WEATHER-CONTEXT-MARK');
    expect(second.systemPrompt).not.toContain('mcp__everything__');
    expect(second.systemPrompt).toContain('### mcp__plugin_notes_everything__echo');

    // Enabled again: its server is one of this project's again (devx mcp list starts each server, no model).
    expect((await extensions(['enable', 'weather'], project)).code).toBe(0);
    const mcp = await runDevx(['mcp', 'list', '--json'], { cwd: project, env: fakeEnv(fake, home) });
    expect((JSON.parse(mcp.stdout) as { servers: { name: string; state: string }[] }).servers.map((s) => [s.name, s.state])).toEqual([
      ['everything', 'ready'],
      ['plugin_notes_everything', 'ready'],
    ]);

    // Uninstalled (and the marketplace removed): HOME is what it was, byte for byte, besides what the runs
    // themselves keep there; and nothing of them loads.
    for (const args of [
      ['uninstall', 'weather'],
      ['uninstall', 'notes'],
      ['marketplace', 'remove', 'market'],
    ]) {
      const r = await extensions(args, project);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(Object.keys(before).filter((k) => RUN_STATE.test(k))).toEqual([]);
    expect(withoutRunState(snapshot(home))).toEqual(before);
    const c = await runScripted(['run', '/forecast Paris'], { cwd: project, home, replies: ['No such command here.'] });
    expect(c.code, c.stderr).toBe(0);
    const third = c.model.requests[0];
    expect(third.prompt).toContain('/forecast Paris');
    expect(third.prompt).not.toMatch(/FORECAST-MARK|WEATHER-CONTEXT-MARK|HOOK-MARK/);
    expect(third.systemPrompt).not.toMatch(/mcp__everything__|mcp__plugin_notes/);
  }, 180_000);

  it('without consent and without a terminal, or with a link out of the bundle, nothing is installed (exit 2); git repositories are cloned and copied', async () => {
    const project = makeProject({});
    const before = snapshot(home);
    const weather = weatherExtension();
    const asked = await extensions(['install', weather], project);
    expect(asked.code).toBe(2);
    expect(asked.stdout).toContain('Installing weather 1.2.0');
    expect(asked.stderr).toContain('not installed: no terminal to ask on; pass --consent (or --yes) to install it');
    expect(snapshot(home)).toEqual(before);

    const secret = write(tempDir('devx-outside-'), { 'secret.txt': 'TOKEN' });
    const evil = write(path.join(tempDir('devx-ext-src-'), 'evil'), { 'gemini-extension.json': JSON.stringify({ name: 'evil', version: '1.0.0' }) });
    fs.symlinkSync(path.join(secret, 'secret.txt'), path.join(evil, 'GEMINI.md'));
    const linked = await extensions(['install', evil, '--consent'], project);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain(
      `devx: ${evil}/GEMINI.md is a link to ${secret}/secret.txt, outside the bundle; a bundle may link only to its own files; nothing was installed`,
    );
    const bad = write(path.join(tempDir('devx-ext-src-'), 'bad'), { 'gemini-extension.json': JSON.stringify({ name: 'bad' }) });
    const noVersion = await extensions(['install', bad, '--consent'], project);
    expect(noVersion.code).toBe(2);
    expect(noVersion.stderr).toContain(`${bad}/gemini-extension.json: "version": is required`);
    expect(snapshot(home)).toEqual(before);

    // A git repository (file://) is cloned with devx's git, copied without its .git, and recorded by its URL.
    const weatherUrl = commitAll(weather);
    const cloned = await extensions(['install', weatherUrl, '--yes'], project);
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, '.devx', 'extensions', 'weather', 'commands', 'forecast.toml'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.devx', 'extensions', 'weather', '.git'))).toBe(false);
    const list = await extensions(['list'], project);
    expect(list.stdout).toContain(`weather 1.2.0  Gemini CLI extension  enabled  from ${weatherUrl}`);
    expect((await extensions(['uninstall', 'weather'], project)).code).toBe(0);
    expect(snapshot(home)).toEqual(before);

    // A marketplace in a git repository, listing a plugin in another one: both cloned; all of it removed again.
    const pluginUrl = commitAll(path.join(notesMarketplace(), 'plugins', 'notes'));
    const marketUrl = commitAll(
      write(tempDir('devx-market-'), {
        '.claude-plugin/marketplace.json': JSON.stringify({
          name: 'remote',
          owner: { name: 'T' },
          plugins: [{ name: 'notes', source: { source: 'url', url: pluginUrl } }],
        }),
      }),
    );
    const addRemote = await extensions(['marketplace', 'add', marketUrl], project);
    expect(addRemote.code, addRemote.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, '.devx', 'marketplaces', 'remote', '.claude-plugin', 'marketplace.json'))).toBe(true);
    const fromRemote = await extensions(['install', 'notes@remote', '--consent'], project);
    expect(fromRemote.code, fromRemote.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, '.devx', 'extensions', 'notes', 'commands', 'summarize.md'))).toBe(true);
    expect(fs.existsSync(path.join(home, '.devx', 'extensions', 'notes', '.git'))).toBe(false);
    const unknown = await extensions(['install', 'notes@elsewhere', '--consent'], project);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no marketplace named "elsewhere" is added (added: remote)');
    for (const args of [
      ['uninstall', 'notes'],
      ['marketplace', 'remove', 'remote'],
    ]) {
      const r = await extensions(args, project);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(snapshot(home)).toEqual(before);
  }, 60_000);

  it('at a terminal, the person is asked after seeing what it runs: n installs nothing (exit 1), y installs it', async () => {
    const project = makeProject({});
    const before = snapshot(home);
    const weather = weatherExtension();
    const no = inPty(['extensions', 'install', weather], project, fakeEnv(fake, home));
    await no.waitFor(/Install weather\? \[y\/N\]/);
    // The question comes after the server's whole command line, as it will run from the installed copy.
    expect(no.screen()).toMatch(/everything: \S+ \S+\/\.devx\/extensions\/weather\/server\.mjs stdio[\s\S]*Install weather\?/);
    no.type('n\r');
    expect(await exitOf(no)).toBe(1);
    expect(snapshot(home)).toEqual(before);
    const yes = inPty(['extensions', 'install', weather], project, fakeEnv(fake, home));
    await yes.waitFor(/Install weather\? \[y\/N\]/);
    yes.type('y\r');
    expect(await exitOf(yes)).toBe(0);
    expect(fs.existsSync(path.join(home, '.devx', 'extensions', 'weather', 'gemini-extension.json'))).toBe(true);
    expect((await extensions(['list'], project)).stdout).toMatch(/^weather 1\.2\.0 +Gemini CLI extension +enabled/m);
  }, 60_000);
});
