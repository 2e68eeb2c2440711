// The full conversation behind a compaction: when devx replaces older messages with a summary, the
// messages themselves are appended to .devx/transcripts/conversation.jsonl first (one JSON object a
// line, never rewritten), so nothing the user and the model said is lost. devx's own file: written
// without following a link, each compaction's lines whole or not at all.
import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '../core/messages.js';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';

export function transcriptsDir(root: string): string {
  return path.join(root, '.devx', 'transcripts');
}

export function conversationTranscript(root: string): string {
  return path.join(transcriptsDir(root), 'conversation.jsonl');
}

/**
 * Appends the messages a compaction replaces, marked with the time of the compaction. An earlier
 * summary among them is not written again: the messages it stood for are in the file already.
 * Returns the file's path relative to the project. Throws (OwnedPathError, DiskError) when it cannot.
 */
export function appendCompacted(root: string, messages: readonly Message[], compactedAt: string): string {
  const file = conversationTranscript(root);
  mkdirOwnedSync(transcriptsDir(root), 0o700);
  // A personal conversation: never committed, whatever .devx/.gitignore says.
  const ignore = path.join(transcriptsDir(root), '.gitignore');
  if (!fs.existsSync(ignore)) writeFileAtomicSync(ignore, '*\n');
  const lines = messages.filter((m) => !m.summaryOf).map((m) => `${JSON.stringify({ compactedAt, ...m })}\n`);
  if (lines.length) appendOwnedSync(file, lines.join(''));
  return path.relative(root, file);
}
