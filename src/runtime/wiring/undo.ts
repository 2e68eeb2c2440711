// What each turn of a run changes, kept for undo (.devx/undo/): the journal the tools write through.
import type { PolicyEngine } from '../../policy/decide.js';
import { UndoJournal } from '../../session/undoStore.js';

/** A file the policy denies reading is not copied into the journal (its change is said to be not undoable). */
export function makeUndoJournal(root: string, policy: PolicyEngine): UndoJournal {
  return new UndoJournal(root, { readDenied: (p) => policy.isReadDenied(p) });
}
