// The embedded store's snapshot file. v1 was Orama's dump as is; v2 packs the per-document term
// frequencies as columns (see packFrequencies.ts) and names its generation, so a journal can say
// which snapshot its changes follow.
import { encode, decode } from '@msgpack/msgpack';
import { packFrequencies, unpackFrequencies, type PackedFrequencies } from './packFrequencies.js';

interface OramaDump {
  index: { frequencies: Record<string, Record<string, Record<string, number> | undefined>> };
}

interface SnapshotV2 {
  devx: 2;
  /** Random per snapshot written; a journal replays only onto the generation it names. */
  gen: string;
  orama: OramaDump;
  frequencies: Record<string, PackedFrequencies>;
}

export function encodeSnapshot(dump: unknown, gen: string): Uint8Array {
  const d = dump as OramaDump;
  const frequencies = Object.fromEntries(Object.entries(d.index.frequencies).map(([prop, f]) => [prop, packFrequencies(f ?? {})]));
  const snap: SnapshotV2 = { devx: 2, gen, orama: { ...d, index: { ...d.index, frequencies: {} } }, frequencies };
  return encode(snap);
}

/** What Orama's `load` takes, and the snapshot's generation (null for a v1 snapshot). Throws on a bad file. */
export function decodeSnapshot(bytes: Uint8Array): { dump: unknown; gen: string | null } {
  const raw = decode(bytes) as Partial<SnapshotV2> | null;
  if (!raw || typeof raw !== 'object' || raw.devx === undefined) return { dump: raw, gen: null };
  if (raw.devx !== 2 || !raw.orama?.index || !raw.frequencies || typeof raw.gen !== 'string')
    throw new Error(`snapshot format ${String(raw.devx)} is not one this devx reads`);
  const frequencies = Object.fromEntries(Object.entries(raw.frequencies).map(([prop, f]) => [prop, unpackFrequencies(f)]));
  return { dump: { ...raw.orama, index: { ...raw.orama.index, frequencies } }, gen: raw.gen };
}
