// The embedded store's journal: small writes append a line instead of rewriting the snapshot, every
// reader replays them, a torn or foreign journal loses nothing acknowledged, and a long journal is
// folded into a new snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore, JOURNAL_MAX_BYTES } from '../../src/knowledge/embeddedStore.js';
import { tempDir } from '../helpers/env.js';

const meta = { agent: 'gemini', timestamp: '2026-01-01T00:00:00Z', project: 'x', type: 'note', tags: [] as string[] };
const doc = (id: string, content: string) => ({ id, content, metadata: meta });
const files = (dir: string) => ({ snap: path.join(dir, 'k.orama'), journal: path.join(dir, 'k.journal') });
const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

async function seeded(): Promise<{ dir: string; store: EmbeddedStore }> {
  const dir = tempDir('devx-journal-');
  const store = new EmbeddedStore(dir, 'k');
  await store.add(Array.from({ length: 50 }, (_, i) => doc(`s${i}`, `seed document number ${i} about parsers and policies`)));
  return { dir, store };
}

describe('knowledge journal', () => {
  it('a small write appends one line and leaves the snapshot alone; other instances replay it', async () => {
    const { dir, store } = await seeded();
    const { snap, journal } = files(dir);
    const before = fs.readFileSync(snap);
    const reader = new EmbeddedStore(dir, 'k');
    expect(await reader.count()).toBe(50);

    await store.add([doc('n1', 'the handoff file names whose turn it is')]);
    await store.delete(['s3']);
    expect(fs.readFileSync(snap).equals(before)).toBe(true);
    expect(lines(journal).map((l) => JSON.parse(l).op ?? 'header')).toEqual(['header', 'add', 'del']);

    // An instance loaded before the writes catches up from the journal; a new one replays it all.
    expect((await reader.search('handoff turn', { limit: 1 }))[0].id).toBe('n1');
    expect(await reader.get('s3')).toBeNull();
    const fresh = new EmbeddedStore(dir, 'k');
    expect(await fresh.count()).toBe(50);
    expect((await fresh.get('n1'))?.content).toBe('the handoff file names whose turn it is');
  });

  it('a line torn by a killed writer is ignored, and the next write cuts it off', async () => {
    const { dir, store } = await seeded();
    const { journal } = files(dir);
    await store.add([doc('n1', 'acknowledged before the crash')]);
    fs.appendFileSync(journal, '{"op":"add","docs":[{"id":"torn","content":"half wri');
    const after = new EmbeddedStore(dir, 'k');
    expect(await after.count()).toBe(51);
    expect(await after.get('torn')).toBeNull();
    await after.add([doc('n2', 'written after the crash')]);
    expect(lines(journal).every((l) => JSON.parse(l))).toBe(true);
    const fresh = new EmbeddedStore(dir, 'k');
    expect(await fresh.count()).toBe(52);
    expect((await fresh.get('n2'))?.content).toBe('written after the crash');
  });

  it('a journal left by an interrupted compaction (another generation) is not replayed, and is replaced on the next write', async () => {
    const { dir, store } = await seeded();
    const { journal } = files(dir);
    fs.writeFileSync(journal, `${JSON.stringify({ devx: 'journal', gen: 'older' })}\n${JSON.stringify({ op: 'del', ids: ['s1'] })}\n`);
    const fresh = new EmbeddedStore(dir, 'k');
    expect(await fresh.get('s1')).not.toBeNull();
    await store.add([doc('n1', 'after the interrupted compaction')]);
    expect(JSON.parse(lines(journal)[0]).gen).not.toBe('older');
    const again = new EmbeddedStore(dir, 'k');
    expect(await again.get('s1')).not.toBeNull();
    expect(await again.get('n1')).not.toBeNull();
  });

  it('folds the journal into a new snapshot once it passes JOURNAL_MAX_BYTES', async () => {
    const { dir, store } = await seeded();
    const { snap, journal } = files(dir);
    const before = fs.statSync(snap).size;
    const big = 'word '.repeat(30_000); // 150,000 characters per document
    let i = 0;
    while (fs.statSync(snap).size === before) {
      await store.add([doc(`b${i}`, `${big} marker${i}`)]);
      i++;
      expect(i).toBeLessThan(Math.ceil(JOURNAL_MAX_BYTES / 150_000) + 3);
    }
    expect(i).toBeGreaterThan(3); // several writes were journaled first
    expect(lines(journal)).toHaveLength(1); // just the header of the new generation
    const fresh = new EmbeddedStore(dir, 'k');
    expect(await fresh.count()).toBe(50 + i);
    expect((await fresh.search(`marker${i - 1}`, { limit: 1 }))[0].id).toBe(`b${i - 1}`);
  });
});
