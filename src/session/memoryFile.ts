// MEMORY.md: durable learnings, one dated bullet each, deduplicated (case and spacing ignored).
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { readProjectNote } from './projectFiles.js';

const HEADER = '# Memory\n\nDurable facts about this project, one per line, newest last. devx sends this file with every prompt.\n\n';
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim();

export type RememberResult = { added: true; line: string } | { added: false; reason: string };

export function remember(root: string, text: string, now: Date): RememberResult {
  const fact = text.replace(/\s+/g, ' ').trim();
  if (!fact) return { added: false, reason: 'empty' };
  const file = path.join(root, 'MEMORY.md');
  const present = fs.lstatSync(file, { throwIfNoEntry: false });
  const read = present ? readProjectNote(root, 'MEMORY.md') : undefined;
  // A link out of the project (or to a key) or a FIFO: rewriting it would copy what it points at into the project.
  if (present && read === undefined)
    return { added: false, reason: 'MEMORY.md is not a regular file in the project (a link out of it, a protected file or a FIFO); make it a plain file' };
  const current = read ?? HEADER;
  const existing = current.split('\n').map((l) => norm(l.replace(/^- (\d{4}-\d{2}-\d{2}: )?/, '')));
  if (existing.includes(norm(fact))) return { added: false, reason: 'already in MEMORY.md' };
  const line = `- ${now.toISOString().slice(0, 10)}: ${fact}`;
  writeFileAtomicSync(file, `${current.replace(/\n*$/, '\n')}${line}\n`);
  return { added: true, line };
}
