// `@path` imports in agent bodies: a line holding only `@some/file.md` is replaced by that file,
// resolved relative to the importing file (or `~/`). Imports nest; a cycle is an error naming the chain.
import fs from 'node:fs';
import path from 'node:path';

const IMPORT = /^[ \t]*@((?:~\/|\.{0,2}\/)?[^\s@][^\s]*)[ \t]*$/;

export function resolveImports(text: string, fromFile: string, home: string, chain: string[] = [fromFile]): string {
  if (chain.length > 20) throw new Error(`imports nest deeper than 20 files: ${chain.join(' -> ')}`);
  let fence = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const m = fence ? null : IMPORT.exec(line);
      if (!m || !/[/.]/.test(m[1])) return line; // "@someone" in prose is not an import
      const target = m[1].startsWith('~/') ? path.join(home, m[1].slice(2)) : path.resolve(path.dirname(fromFile), m[1]);
      if (chain.includes(target)) throw new Error(`import cycle: ${[...chain, target].map((f) => path.basename(f)).join(' -> ')}`);
      if (!fs.existsSync(target)) throw new Error(`import not found: ${m[1]} (from ${path.basename(fromFile)})`);
      return resolveImports(fs.readFileSync(target, 'utf8'), target, home, [...chain, target]).replace(/\n$/, '');
    })
    .join('\n');
}
