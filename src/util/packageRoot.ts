// Locates devx's own package directory (works from src/ under vitest and from dist/ when installed).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'devx') return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('devx: cannot find its own package.json');
    dir = parent;
  }
}

export function readPrompt(relPath: string): string {
  return fs.readFileSync(path.join(packageRoot(), 'prompts', relPath), 'utf8');
}

export function packageVersion(): string {
  return JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;
}
