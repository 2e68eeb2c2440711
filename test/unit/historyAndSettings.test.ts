import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHistory, saveHistory } from '../../src/session/history.js';
import { ConfigError, loadSettings } from '../../src/config/settings.js';
import { findProjectRoot } from '../../src/config/paths.js';
import { tempDir } from '../helpers/env.js';

describe('history', () => {
  it('round-trips atomically', () => {
    const file = path.join(tempDir(), '.devx', 'history.json');
    fs.mkdirSync(path.dirname(file));
    const messages = [{ role: 'user' as const, content: 'hi', at: '2026-01-01T00:00:00Z' }];
    saveHistory(file, messages);
    expect(loadHistory(file).messages).toEqual(messages);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['history.json']);
  });

  it('sets a corrupt file aside with a warning instead of dropping it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'history.json');
    for (const bad of ['{"version":1,"messages":[{"role":"us', '{"version":2}', '[]']) {
      fs.writeFileSync(file, bad);
      const r = loadHistory(file, () => new Date('2026-01-01T00:00:00Z'));
      expect(r.messages).toEqual([]);
      expect(r.warning).toMatch(/moved to .*history.corrupt-2026-01-01T00-00-00-000Z.json/);
      const aside = fs.readdirSync(dir).find((f) => f.includes('corrupt'))!;
      expect(fs.readFileSync(path.join(dir, aside), 'utf8')).toBe(bad);
      fs.rmSync(path.join(dir, aside));
    }
  });

  it('a missing file is an empty history', () => {
    expect(loadHistory(path.join(tempDir(), 'none.json'))).toEqual({ messages: [] });
  });
});

describe('settings', () => {
  const setup = (user?: unknown, project?: unknown, local?: unknown) => {
    const home = tempDir();
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.devx'));
    if (user) fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify(user));
    if (project) fs.writeFileSync(path.join(root, '.devx', 'settings.json'), JSON.stringify(project));
    if (local) fs.writeFileSync(path.join(root, '.devx', 'settings.local.json'), JSON.stringify(local));
    return { devxHome: home, projectRoot: root, env: {} };
  };

  it('merges user, project and local files, then env and flags', () => {
    const src = setup({ model: 'u', maxToolRounds: 7 }, { model: 'p' }, { contextBudgetChars: 50_000 });
    const s = loadSettings(src);
    expect([s.model, s.maxToolRounds, s.contextBudgetChars]).toEqual(['p', 7, 50_000]);
    expect(loadSettings({ ...src, env: { DEVX_MODEL: 'e' } }).model).toBe('e');
    expect(loadSettings({ ...src, env: { DEVX_MODEL: 'e' }, overrides: { model: 'flag' } }).model).toBe('flag');
  });

  it('ignores program-running settings from project files, with a warning', () => {
    const s = loadSettings(
      setup(
        {},
        {
          accounts: [{ name: 'x', command: ['./evil.sh'] }],
          providers: { gemini: { bin: './evil', timeoutSec: 5, accounts: [{ name: 'y', command: ['./evil2.sh'] }] } },
        },
      ),
    );
    expect(s.providers.gemini.accounts).toEqual([]);
    expect(s.providers.gemini.bin).toBe('gemini');
    expect(s.providers.gemini.timeoutMs).toBe(5000);
    expect(s.warnings.join('\n')).toMatch(/"accounts" is ignored[\s\S]*"providers.gemini.bin" is ignored[\s\S]*"providers.gemini.accounts" is ignored/);
  });

  it('still loads the old "gemini" key, as providers.gemini, with a deprecation line', () => {
    const s = loadSettings(setup({ gemini: { bin: '/opt/gemini', timeoutSec: 7, maxRetries: 1 }, accounts: [{ name: 'a', env: { K: '1' } }] }));
    expect(s.providers.gemini).toMatchObject({ bin: '/opt/gemini', timeoutMs: 7000, maxRetries: 1, accounts: [{ name: 'a', env: { K: '1' } }] });
    expect(s.warnings.join('\n')).toMatch(/"gemini" is deprecated; move it to "providers"/);
    // The new key wins over the old one.
    expect(loadSettings(setup({ gemini: { timeoutSec: 7 }, providers: { gemini: { timeoutSec: 9 } } })).providers.gemini.timeoutMs).toBe(9000);
    expect(() => loadSettings(setup({ provider: 'nope' }))).toThrow(/unknown provider "nope"; devx has: gemini, claude/);
  });

  it('chooses the provider: flag over project over user; its default model when none is set', () => {
    const both = setup({ provider: 'claude' }, { provider: 'gemini' });
    expect(loadSettings(both).provider).toBe('gemini');
    expect(loadSettings({ ...both, overrides: { provider: 'claude' } })).toMatchObject({ provider: 'claude', model: 'sonnet' });
    expect(loadSettings(setup({ provider: 'claude' }))).toMatchObject({ provider: 'claude', model: 'sonnet' });
    // The session model belongs to the session's provider; another provider keeps its own default.
    const s = loadSettings(setup({ model: 'gemini-2.5-flash' }));
    expect([s.providers.gemini.model, s.providers.claude.model]).toEqual(['gemini-2.5-flash', 'sonnet']);
  });

  it('reports invalid files with the file, key and reason', () => {
    const src = setup(undefined, { maxToolRounds: 0 });
    expect(() => loadSettings(src)).toThrow(ConfigError);
    expect(() => loadSettings(src)).toThrow(/settings.json: invalid setting "maxToolRounds"/);
    expect(() => loadSettings(setup({ modle: 'x' }))).toThrow(/invalid setting "modle": unknown setting/);
    expect(() => loadSettings(setup(undefined, undefined, 'x'))).toThrow(/settings.local.json: invalid setting "\(top level\)"/);
    const broken = setup();
    fs.writeFileSync(path.join(broken.projectRoot, '.devx', 'settings.json'), '{ nope');
    expect(() => loadSettings(broken)).toThrow(/invalid JSON/);
  });

  it('finds the project root at the nearest .git', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.git'));
    fs.mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    expect(findProjectRoot(path.join(root, 'a', 'b'))).toBe(root);
  });
});

describe('history size', () => {
  it('keeps only the newest messages within the cap, trimming the live array too', async () => {
    const { saveHistory, trimHistory } = await import('../../src/session/history.js');
    const msg = (i: number, n: number) => ({ role: 'user' as const, content: `${i}:${'x'.repeat(n)}`, at: '2026-01-01T00:00:00Z' });
    const messages = Array.from({ length: 10 }, (_, i) => msg(i, 98));
    expect(trimHistory(messages, 350).map((m) => m.content[0])).toEqual(['7', '8', '9']);
    expect(trimHistory([msg(0, 5000)], 100)).toHaveLength(1);
    const file = path.join(tempDir(), 'history.json');
    saveHistory(file, messages, 350);
    expect(messages.map((m) => m.content[0])).toEqual(['7', '8', '9']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).messages).toHaveLength(3);
  });
});
