// Docs that stay true: every relative link in README.md and docs/ resolves; every settings key the schema
// accepts is in docs/settings.md and every key a settings table names is one the schema accepts; every
// `devx …` invocation the pages show names a command, subcommand and flags the command table has; the
// tool list is the registry's; no seed or issue numbers in the code, its tests, prompts, docs or the README.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/config/settings.js';
import { COMMAND_TABLE, findCommand } from '../../src/cli/commands/index.js';
import { builtinTools } from '../../src/tools/registry.js';

const ROOT = path.resolve(__dirname, '../..');
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Keys of a zod schema, nested objects and records' values as `a.b` (records as `a.<id>`). */
function keysOf(schema: unknown, prefix = ''): string[] {
  let s = schema as { _def?: Record<string, unknown>; def?: Record<string, unknown>; shape?: Record<string, unknown> };
  for (let i = 0; i < 10; i++) {
    const def = (s._def ?? s.def) as { type?: string; getter?: () => unknown; innerType?: unknown; in?: unknown; valueType?: unknown } | undefined;
    if (!def) break;
    if (def.type === 'lazy' && def.getter) s = def.getter() as typeof s;
    else if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) s = def.innerType as typeof s;
    else if (def.type === 'pipe' && def.in) s = def.in as typeof s;
    else break;
  }
  const def = (s._def ?? s.def) as { type?: string; valueType?: unknown } | undefined;
  if (def?.type === 'record' && prefix) return keysOf(def.valueType, `${prefix}.<id>`).filter((k) => k !== `${prefix}.<id>`);
  if (def?.type !== 'object' || !s.shape) return [];
  return Object.entries(s.shape).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    return [key, ...keysOf(v, key)];
  });
}

describe('the docs', () => {
  it('every relative link resolves', () => {
    const dead: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split('#')[0];
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!fs.existsSync(path.resolve(path.dirname(path.join(ROOT, page)), target))) dead.push(`${page}: ${m[1]}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('every settings key is documented in docs/settings.md', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'settings.md'), 'utf8');
    // mcpServers and hooks have pages of their own; the deprecated `gemini` section is providers.<id>'s.
    const keys = keysOf(SettingsSchema).filter((k) => !k.startsWith('mcpServers.') && !k.startsWith('hooks.') && !k.startsWith('gemini.'));
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter((k) => !doc.includes(`\`${k}\``))).toEqual([]);
  });

  it('the README onboards: it starts with the two commands and stays short', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').slice(3, 6).join('\n')).toMatch(/^npm install\nnpx devx .*\nnpm test/);
    expect(readme.split('\n').length).toBeLessThanOrEqual(120);
  });

  it('every `devx …` invocation names a command, a subcommand and flags devx has', async () => {
    const commands = new Map(await Promise.all(COMMAND_TABLE.map(async (e) => [e.name, await e.load()] as const)));
    const repl = commands.get('repl')!;
    const bad: string[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
      // Code spans and code-block lines that run devx (not "devx's", not prose).
      const fenced = [...text.matchAll(/^```[^\n]*\n([^]*?)^```/gm)].flatMap((m) => m[1].split('\n'));
      const snippets = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]).concat(fenced.filter((l) => /^\s*(\$ )?(npx )?devx\b/.test(l)));
      for (const snip of snippets) {
        for (const m of snip.matchAll(/(?:^|[\s(])(?:npx )?devx((?: +[^\s|;&)]+)*)/g)) {
          const words = m[1].trim().split(/\s+/).filter(Boolean);
          const first = words[0];
          const entry = first && /^[a-z][a-z-]*$/.test(first) ? findCommand(first) : undefined;
          if (first && /^[a-z][a-z-]*$/.test(first) && !entry) {
            bad.push(`${page}: devx ${first} is no command`);
            continue;
          }
          const cmd = entry ? commands.get(entry.name)! : repl;
          const sub = entry ? words[1] : undefined;
          if (cmd.subcommands?.length && sub && /^[a-z][a-z-]*$/.test(sub) && !cmd.subcommands.some((s) => s.name === sub) && !/[<|]/.test(sub))
            bad.push(`${page}: devx ${cmd.name} ${sub} is no subcommand`);
          for (const w of words) {
            const flag = /^--([a-z][\w-]*)/.exec(w)?.[1];
            if (flag && flag !== 'help' && !cmd.flags[flag]) bad.push(`${page}: devx ${entry?.name ?? ''} --${flag} is no flag of that command`);
          }
        }
      }
    }
    expect([...new Set(bad)]).toEqual([]);
  });

  it('every key a settings table in docs/settings.md names is one the schema accepts', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'settings.md'), 'utf8');
    const keys = new Set(keysOf(SettingsSchema));
    const named = [...doc.matchAll(/^\| `([a-zA-Z][\w.<>]*)` \|/gm)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((k) => !keys.has(k))).toEqual([]);
  });

  it("docs/architecture.md lists the registry's built-in tools", () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const listed = /Tools \(`builtinTools\(\)`[^]*?: ([^]*?); and, per session/.exec(doc)?.[1] ?? '';
    expect([...listed.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort()).toEqual(
      builtinTools()
        .map((t) => t.name)
        .sort(),
    );
  });

  it('names no seed or issue numbers in the code, its tests, prompts, docs or the README', () => {
    const dirs = ['src', 'test', 'bench', 'scripts', 'prompts', 'tools', 'editors/vscode/src'].map((d) => path.join(ROOT, d));
    const files = [...pages.map((p) => path.join(ROOT, p)), ...dirs.filter((d) => fs.existsSync(d)).flatMap((d) => walk(d))];
    const hits = files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((l, i) => (/\b[Ss]eed \d{3}\b|\bFR-PoC\d|\(#\d+[),]|\b[Ii]ssue #\d+|#\d+, point/.test(l) ? [`${path.relative(ROOT, f)}:${i + 1}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('keeps measured figures out of the code and docs: an approximate time or size points to `npm run bench` instead', () => {
    // bench/ is where measurements live; fenced blocks in the docs are sample output; test/fixtures is data.
    const code = ['src', 'prompts', 'scripts', 'test', 'editors/vscode/src'].flatMap((d) => walk(path.join(ROOT, d)));
    const files = [
      ...pages.map((p) => path.join(ROOT, p)),
      ...code.filter((f) => !f.includes(`${path.sep}fixtures${path.sep}`)),
      ...['vitest.config.ts', 'eslint.config.mjs'].map((f) => path.join(ROOT, f)),
    ];
    // An approximate figure (~N, about N, measured ... N), or a figure said to have been seen (N s was seen).
    const approx =
      /(~|\babout |\baround |\bmeasured[^.]{0,40}?)\d[\d.,]* ?(ms|s|seconds|KB|MB|%)\b|\d[\d.,]* ?(ms|s|seconds|min|minutes)\b[^.;]{0,30}\b(was|were) (seen|measured|observed)\b/;
    const hits = files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .replace(/^```[^]*?^```/gm, (block) => block.replace(/[^\n]/g, ''))
        .split('\n')
        .flatMap((l, i) => (approx.test(l) ? [`${path.relative(ROOT, f)}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.(ts|mjs|md|toml|ya?ml)$/.test(e.name) ? [path.join(dir, e.name)] : []));
}
