// What every tool that writes a file does first: resolve the path (the sandbox checks it), refuse a
// directory, and create the parent folders.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { ToolError, type ToolContext } from './types.js';
import { displayPath } from '../sandbox/resolvePath.js';

export async function prepareWrite(ctx: ToolContext, p: string): Promise<{ abs: string; shown: string; existed: Stats | null }> {
  const abs = ctx.resolve(p);
  const shown = displayPath(ctx.root, abs);
  const existed = await fs.lstat(abs).catch(() => null);
  if (existed?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path.`);
  await fs.mkdir(path.dirname(abs), { recursive: true });
  return { abs, shown, existed };
}
