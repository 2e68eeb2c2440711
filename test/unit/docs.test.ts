// Docs that stay true (#32): every relative link in README.md and docs/ resolves, and every settings key
// the schema accepts is in docs/settings.md.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/config/settings.js';

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
});
