// Undo's cost: the same edit_file call through the one tool wrapper with and without
// undo's journal in its context, interleaved so the machine's drift falls on both sides (per changed file,
// and per turn of several edits), then the disk the store uses after a scripted 100-turn session.
import { plainToolContext } from '../test/helpers/toolContext.js';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtinTools } from '../src/tools/registry.js';
import { runToolCall, type ToolCallDeps } from '../src/tools/runToolCall.js';
import { UndoJournal, loadTurns, undoDir } from '../src/session/undoStore.js';
import { makePolicy } from '../test/helpers/policy.js';
import { makeProject } from '../test/helpers/env.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const OWNER = 'b'.repeat(32);

/** A source file of about `bytes` bytes, one line of which the bench edits. */
function sourceFile(i: number, bytes: number): string {
  const lines = [`export const version${i} = 1;`];
  for (let n = 0; lines.join('\n').length < bytes; n++)
    lines.push(`export function f${i}_${n}(x: number): number { return x * ${n} + ${i}; } // ${'-'.repeat(20)}`);
  return `${lines.join('\n')}\n`;
}

function diskUse(dir: string): { bytes: number; blocks: number; files: number } {
  let bytes = 0;
  let blocks = 0;
  let files = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const st = fs.statSync(path.join(e.parentPath, e.name));
    bytes += st.size;
    blocks += st.blocks * 512;
    files++;
  }
  return { bytes, blocks, files };
}

export async function benchUndo(rounds = Number(process.env.BENCH_UNDO_ROUNDS ?? 41)): Promise<void> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) files[`src/mod${i}.ts`] = sourceFile(i, 4096);
  const root = fs.realpathSync(makeProject(files, { git: false }));
  const policy = await makePolicy(root);
  const tools = builtinTools();
  const journal = new UndoJournal(root, { owner: OWNER, readDenied: (p) => policy.isReadDenied(p) });
  const deps = (withUndo: boolean): ToolCallDeps => ({
    tools: new Map(tools.map((t) => [t.name, t])),
    ctx: plainToolContext(root, withUndo ? { changes: journal } : {}),
    decide: (tool, args) => policy.decideToolCall(tool, args),
    approve: async () => 'yes',
    maxOutputChars: 50_000,
  });
  const plain = deps(false);
  const kept = deps(true);
  const version = new Map<number, number>();
  /** One real change: its version line 1 <-> 2 in a 4 KB file. */
  const edit = async (d: ToolCallDeps, file: number) => {
    const from = version.get(file) ?? 1;
    version.set(file, 3 - from);
    const r = await runToolCall(
      { tool: 'edit_file', args: { path: `src/mod${file}.ts`, old_text: `version${file} = ${from};`, new_text: `version${file} = ${3 - from};` } },
      d,
    );
    if (r.status !== 'ok') throw new Error(`edit failed in the bench: ${r.content}`);
  };

  // Per changed file: one edit_file call, each in a turn of its own.
  const alone: number[] = [];
  const snap: number[] = [];
  for (let i = 0; i < rounds + 2; i++) {
    let t0 = performance.now();
    await edit(plain, i % 20);
    const a = performance.now() - t0;
    journal.beginTurn(`bench edit ${i}`);
    t0 = performance.now();
    await edit(kept, (i + 10) % 20);
    const b = performance.now() - t0;
    journal.endTurn();
    if (i >= 2) {
      alone.push(a);
      snap.push(b);
    }
  }
  const a1 = median(alone);
  const s1 = median(snap);
  console.log(
    `undo, per changed file: edit_file of a 4 KB file ${fmt(s1)} with the snapshot vs ${fmt(a1)} without (median of ${rounds}) -> ratio ${(s1 / a1).toFixed(2)} (+${fmt(s1 - a1)} per file: keep the before-state with fsync, record the after-state)`,
  );

  // Per turn: five edits, begin to end of the turn (the manifest's end time written with fsync).
  const turnPlain: number[] = [];
  const turnKept: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let t0 = performance.now();
    for (let f = 0; f < 5; f++) await edit(plain, f);
    turnPlain.push(performance.now() - t0);
    t0 = performance.now();
    journal.beginTurn(`bench turn ${i}`);
    for (let f = 10; f < 15; f++) await edit(kept, f);
    journal.endTurn();
    turnKept.push(performance.now() - t0);
  }
  const tp = median(turnPlain);
  const tk = median(turnKept);
  console.log(
    `undo, per turn of 5 edits: ${fmt(tk)} with snapshots vs ${fmt(tp)} without (median of ${rounds}) -> ratio ${(tk / tp).toFixed(2)} (+${fmt(tk - tp)} per turn)`,
  );

  // Disk use over a scripted 100-turn session in a fresh project: each turn edits 1-3 files (one line of a
  // 4 KB file), every 10th creates a file, every 25th deletes one; the store prunes itself as it would.
  const files2: Record<string, string> = {};
  for (let i = 0; i < 20; i++) files2[`src/mod${i}.ts`] = sourceFile(i, 4096);
  const root2 = fs.realpathSync(makeProject(files2, { git: false }));
  const j2 = new UndoJournal(root2, { owner: OWNER });
  const p = (rel: string) => path.join(root2, rel);
  const t0 = performance.now();
  let changes = 0;
  for (let turn = 1; turn <= 100; turn++) {
    j2.beginTurn(`turn ${turn}`);
    const n = 1 + (turn % 3);
    for (let k = 0; k < n; k++) {
      const rel = `src/mod${(turn * 7 + k) % 20}.ts`;
      if (!fs.existsSync(p(rel))) continue;
      j2.before([p(rel)], `edit ${rel}`);
      const text = fs.readFileSync(p(rel), 'utf8');
      fs.writeFileSync(
        p(rel),
        text.replace(/^(export const version\d+ = )(\d+);/, (_, a: string, v: string) => `${a}${Number(v) + 1};`),
      );
      j2.after([p(rel)]);
      changes++;
    }
    if (turn % 10 === 0) {
      const rel = `src/new/file${turn}.ts`;
      j2.before([p(rel)], `write ${rel}`);
      fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
      fs.writeFileSync(p(rel), sourceFile(100 + turn, 2048));
      j2.after([p(rel)]);
      changes++;
    }
    if (turn % 25 === 0) {
      const rel = `src/mod${turn / 25}.ts`;
      j2.before([p(rel)], `run: rm ${rel}`);
      fs.rmSync(p(rel));
      j2.after([p(rel)]);
      changes++;
    }
    j2.endTurn();
  }
  const sessionMs = performance.now() - t0;
  const use = diskUse(undoDir(root2));
  const src = diskUse(path.join(root2, 'src'));
  const turns = loadTurns(root2, OWNER).length;
  console.log(
    `undo, disk over a 100-turn session (${changes} file changes, a 20-file 80 KB project): .devx/undo holds ${(use.bytes / 1024).toFixed(0)} KB in ${use.files} files ` +
      `(${(use.blocks / 1024).toFixed(0)} KB of disk blocks; ${turns} turn manifests) vs the project's sources ${(src.bytes / 1024).toFixed(0)} KB -> ratio ${(use.bytes / src.bytes).toFixed(2)}; ` +
      `${fmt(sessionMs / changes)} per change in the scripted session`,
  );
}
