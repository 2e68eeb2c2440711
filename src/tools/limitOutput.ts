// The one place tool output is cut. Each tool declares its limits (lines and characters, and
// whether the head or both ends matter); output past them is saved whole in a file under .devx/
// and the result tells the model where it is and how to read the rest.
import path from 'node:path';
import crypto from 'node:crypto';
import { writeStateSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';

export interface OutputLimits {
  /** Characters the model sees at most (default: the maxToolOutputChars setting). */
  maxChars?: number;
  /** Lines the model sees at most. */
  maxLines?: number;
  /** 'head' keeps the start (listings, matches); 'head-tail' keeps both ends (command output, where errors come last). */
  keep?: 'head' | 'head-tail';
}

export function spillDir(root: string): string {
  return path.join(root, '.devx', 'tool-output');
}

/** Saves the whole output; returns its project-relative path, or null when it cannot be written. */
export function spillOutput(root: string, tool: string, content: string): string | null {
  try {
    const dir = spillDir(root);
    mkdirOwnedSync(dir);
    const name = `${tool}-${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}.txt`;
    writeStateSync(path.join(dir, name), content);
    return path.relative(root, path.join(dir, name));
  } catch {
    return null;
  }
}

function cutHead(lines: string[], maxLines: number, maxChars: number): number {
  let chars = 0;
  let n = 0;
  while (n < lines.length && n < maxLines && chars + lines[n].length + 1 <= maxChars) chars += lines[n++].length + 1;
  return n;
}

export function limitOutput(content: string, limits: OutputLimits, spill: (full: string) => string | null): string {
  const maxChars = limits.maxChars ?? Infinity;
  const maxLines = limits.maxLines ?? Infinity;
  const lines = content.split('\n');
  if (content.length <= maxChars && lines.length <= maxLines) return content;
  const saved = spill(content);
  const where = saved
    ? `The whole output is saved in ${saved}; read the rest with read_file | path=${saved} | offset=`
    : 'The rest could not be saved; narrow the request to see it.';
  if (limits.keep === 'head-tail') {
    const budget = Math.max(0, Math.min(maxChars, Number.MAX_SAFE_INTEGER) - 200);
    const headN = cutHead(lines, Math.floor(maxLines * 0.6), Math.ceil(budget * 0.6));
    const tailLines = lines.slice(headN).reverse();
    const tailN = cutHead(tailLines, Math.floor(maxLines * 0.4), Math.floor(budget * 0.4));
    const head = lines.slice(0, Math.max(headN, 0));
    const tail = lines.slice(lines.length - tailN);
    const omitted = lines.length - head.length - tail.length;
    const note = `[truncated: ${omitted} of ${lines.length} lines (${content.length} characters in all) omitted here. ${saved ? `${where}${head.length + 1}` : where}]`;
    return [...head, note, ...tail].join('\n');
  }
  const n = cutHead(lines, maxLines, Math.max(0, maxChars - 200));
  if (n === 0) {
    // The first line alone is over the budget: show its start; search the saved file for the rest.
    const note = `[truncated: the first line alone is ${lines[0].length} characters (${content.length} in all). ${saved ? `The whole output is saved in ${saved}; find what you need in it with search_code | path=${saved}` : where}]`;
    return `${lines[0].slice(0, Math.max(0, maxChars - 300))}\n${note}`;
  }
  const note = `[truncated: showing ${n} of ${lines.length} lines (${content.length} characters in all). ${saved ? `${where}${n + 1}` : where}]`;
  return `${lines.slice(0, n).join('\n')}\n${note}`;
}
