// HANDOFF.md, the file devx and Claude Code pass back and forth (format v1):
//
//   CLAUDE_TURN: READY            <- whose turn it is: CLAUDE_TURN or GEMINI_TURN
//   <!-- devx handoff v1 · session <id> · <time> -->
//   # Handoff
//   ## Summary / ## Done / ## Next / ## Blockers / ## Artifacts / ## Open questions
//
// The marker must be the first non-blank line. Sections are Markdown; lists are "- " bullets.
//
// Only this user's handoff is read (into prompts, the start's orientation, `handoff --wait`, the next
// handoff's carried-over items): devx's line ends with the user's mark (session/ownerId.ts ownerMark),
// which survives Claude Code editing the file; a HANDOFF.md without it (one that came with the project)
// is set aside, kept as it is, and replaced (into .devx/handoffs/) only when the user's session hands off.
import fs from 'node:fs';
import path from 'node:path';
import { linkOnTheWay } from '../util/realPath.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { readProjectNote } from './projectFiles.js';
import { ownerMark, trackedByGit } from './ownerId.js';

export type Turn = 'CLAUDE_TURN' | 'GEMINI_TURN';
export const SECTIONS = ['Summary', 'Done', 'Next', 'Blockers', 'Artifacts', 'Open questions'] as const;

export interface ParsedHandoff {
  turn: Turn | null;
  sections: Record<string, string>;
}

export function handoffPath(root: string): string {
  return path.join(root, 'HANDOFF.md');
}

export function parseHandoff(text: string): ParsedHandoff {
  const first =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  const m = /^(CLAUDE_TURN|GEMINI_TURN):\s*READY$/.exec(first);
  const sections: Record<string, string> = {};
  let current: string | null = null;
  for (const line of text.split('\n')) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h) {
      current = h[1];
      sections[current] = '';
    } else if (current) sections[current] += `${line}\n`;
  }
  for (const k of Object.keys(sections)) sections[k] = sections[k].trim();
  return { turn: m ? (m[1] as Turn) : null, sections };
}

export function bullets(section: string | undefined): string[] {
  return (section ?? '')
    .split('\n')
    .filter((l) => /^\s*[-*] /.test(l))
    .map((l) => l.replace(/^\s*[-*] (\[[ x]\] )?/, '').trim());
}

/** This user's mark for the project's handoff; null without an owner id. */
export function handoffMark(root: string): string | null {
  return ownerMark(root, 'HANDOFF.md');
}

const MARK_LINE = /^<!-- devx handoff v1 · .* · owner ([0-9a-f]{32}) -->$/gm;

/** Whether `text` (the project's HANDOFF.md) is this user's: it carries their mark (without an id: git does not track it). */
export function isOwnHandoff(root: string, text: string): boolean {
  const mark = handoffMark(root);
  if (!mark) return !trackedByGit(handoffPath(root));
  return [...text.matchAll(MARK_LINE)].some((m) => m[1] === mark);
}

/** The project's HANDOFF.md when it is this user's; undefined when there is none or it is set aside. */
export function readOwnHandoff(root: string): string | undefined {
  const text = readProjectNote(root, 'HANDOFF.md');
  return text !== undefined && isOwnHandoff(root, text) ? text : undefined;
}

/**
 * Marks the project's HANDOFF.md as this user's (one the user, or their Claude Code, wrote without devx's
 * line): a line after the turn marker. Returns false when there is none, or no owner id to mark it with.
 */
export function adoptHandoff(root: string, now: Date): boolean {
  const text = readProjectNote(root, 'HANDOFF.md');
  const mark = handoffMark(root);
  if (text === undefined || !mark) return false;
  if (isOwnHandoff(root, text)) return true;
  const line = `<!-- devx handoff v1 · adopted ${now.toISOString()} · owner ${mark} -->`;
  const lines = text.split('\n');
  const at = parseHandoff(text).turn ? lines.findIndex((l) => l.trim() !== '') + 1 : 0;
  lines.splice(at, 0, line);
  writeFileAtomicSync(handoffPath(root), lines.join('\n'));
  return true;
}

export function readHandoff(root: string): ParsedHandoff | null {
  try {
    const text = readOwnHandoff(root);
    return text === undefined ? null : parseHandoff(text);
  } catch {
    return null;
  }
}

export interface HandoffContent {
  turn: Turn;
  session: string;
  now: Date;
  /** Sections drafted by the model or built from the session record. */
  sections: Partial<Record<(typeof SECTIONS)[number], string>>;
  /** The user's mark (handoffMark), which makes the file theirs to read back. */
  mark?: string;
}

export function renderHandoff(h: HandoffContent): string {
  const owner = h.mark ? ` · owner ${h.mark}` : '';
  const parts = [`${h.turn}: READY`, `<!-- devx handoff v1 · session ${h.session} · ${h.now.toISOString()}${owner} -->`, '', '# Handoff', ''];
  for (const s of SECTIONS) parts.push(`## ${s}`, (h.sections[s] ?? '').trim() || '- None.', '');
  return parts.join('\n');
}

/** Where replaced handoffs are kept (newest last by name), so a baton is never lost. */
export function handoffArchive(root: string): string {
  return path.join(root, '.devx', 'handoffs');
}

/** The kept handoffs, oldest first. */
export function listHandoffs(root: string): string[] {
  // A linked archive is not devx's (it came with the checkout): nothing is listed through it.
  if (linkOnTheWay(root, path.relative(root, handoffArchive(root)))) return [];
  try {
    return fs
      .readdirSync(handoffArchive(root), { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.md'))
      .map((e) => path.join(handoffArchive(root), e.name))
      .sort();
  } catch {
    return [];
  }
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\(carried over[^)]*\)/, '')
    .trim();

/**
 * Writes HANDOFF.md. The one it replaces is kept in .devx/handoffs/, and, when it was this user's, its open
 * Next items that this session neither finished (named under Done) nor listed again are carried over.
 */
export function writeHandoff(root: string, h: HandoffContent): string {
  const file = handoffPath(root);
  const before = readProjectNote(root, 'HANDOFF.md');
  const sections = { ...h.sections };
  if (before !== undefined && before.trim()) {
    const stamp = h.now.toISOString().replace(/[:.]/g, '-');
    mkdirOwnedSync(handoffArchive(root));
    writeFileAtomicSync(path.join(handoffArchive(root), `${stamp}-replaced-by-${h.session}.md`), before);
  }
  if (before !== undefined && before.trim() && isOwnHandoff(root, before)) {
    const prev = parseHandoff(before);
    const done = norm(sections.Done ?? '');
    const next = norm(sections.Next ?? '');
    const open = bullets(prev.sections.Next).filter((item) => {
      const key = norm(item).slice(0, 60);
      return key && key !== 'none.' && !done.includes(key) && !next.includes(key);
    });
    if (open.length) {
      const kept = (sections.Next ?? '').trim();
      sections.Next = [
        ...(kept && !/^- None\.?$/.test(kept) ? [kept] : []),
        ...open.map((i) => `- ${i.replace(/ \(carried over[^)]*\)$/, '')} (carried over from the previous handoff)`),
      ].join('\n');
    }
  }
  const text = renderHandoff({ ...h, sections, mark: h.mark ?? handoffMark(root) ?? undefined });
  writeFileAtomicSync(file, text);
  return text;
}

/** Pulls the drafted sections out of the model's reply (it is asked for exactly these headings). */
export function sectionsFromDraft(reply: string): Partial<Record<(typeof SECTIONS)[number], string>> | null {
  const parsed = parseHandoff(reply);
  const out: Partial<Record<(typeof SECTIONS)[number], string>> = {};
  for (const s of SECTIONS) if (parsed.sections[s]) out[s] = parsed.sections[s];
  return out.Summary ? out : null;
}
