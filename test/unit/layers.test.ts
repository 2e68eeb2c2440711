// The layers of src/: imports only point down. A folder's imports may name its own layer's
// lower folders (listed in LAYERS order) and any lower layer, never a higher one; nothing outside
// src/cli imports from it. Fails naming each upward import.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

/** Top first. Within one layer, a folder may import only from folders listed after it. */
export const LAYERS: string[][] = [
  ['cli', 'acp'],
  ['workflow', 'queue', 'clarify'],
  ['runtime'],
  ['commands', 'personas', 'session', 'audit', 'core', 'mcp', 'tools', 'knowledge', 'config', 'extensions', 'policy'],
  ['providers', 'protocol', 'sandbox', 'util'],
];

const rank = new Map<string, [number, number]>();
LAYERS.forEach((layer, i) => layer.forEach((f, j) => rank.set(f, [i, j])));

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => path.resolve(path.dirname(file), s));
}

const folderOf = (abs: string) => path.relative(SRC, abs).split(path.sep)[0];

export function upwardImports(): string[] {
  const bad: string[] = [];
  for (const file of filesUnder(SRC)) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      const a = rank.get(from);
      const b = rank.get(to);
      const where = `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`;
      if (!a || !b) bad.push(`${where}: folder not in LAYERS (add it to test/unit/layers.test.ts)`);
      else if (b[0] < a[0] || (b[0] === a[0] && b[1] <= a[1])) bad.push(`${where}: ${to} is not below ${from}`);
    }
  }
  return bad;
}

describe('layers', () => {
  it('every folder of src/ has a layer', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !rank.has(f))).toEqual([]);
  });

  it('imports only point down', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('the check sees an upward import', () => {
    const probe = path.join(SRC, 'util', '__layer_probe.ts');
    fs.writeFileSync(probe, "import { runCli } from '../cli/runCli.js';\nexport const x = runCli;\n");
    try {
      expect(upwardImports()).toEqual(['util/__layer_probe.ts -> cli/runCli.js: cli is not below util']);
    } finally {
      fs.rmSync(probe);
    }
  });

  it('no import cycle between files (type imports included)', () => {
    const graph = new Map<string, string[]>();
    for (const f of filesUnder(SRC))
      graph.set(
        f,
        importsOf(f)
          .map((t) => t.replace(/\.js$/, '.ts'))
          .filter((t) => t.startsWith(SRC)),
      );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const t of graph.get(f) ?? []) {
        if (state.get(t) === 'open') cycles.push([...stack.slice(stack.indexOf(t)), t].map((x) => path.relative(SRC, x)).join(' -> '));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  // `import { z } from 'zod'` hands the bundler zod's whole namespace object: every locale, JSON-schema
  // import and the schema compiler (several times what devx uses), compiled at every start.
  it('zod is imported as a namespace, so the bundle keeps only what devx uses', () => {
    const bad = filesUnder(SRC).filter((f) =>
      /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*['"]zod['"]/.test(fs.readFileSync(f, 'utf8').replace(/import type[^;]+;/g, '')),
    );
    expect(bad.map((f) => path.relative(SRC, f))).toEqual([]);
  });
});
