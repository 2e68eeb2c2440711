// What devx sends an editor to show (prose, a call's title, a tool's result, a mode's or a command's
// description) carries no terminal control: a client in a terminal prints it as it comes.
import { escapeControls } from '../util/terminalText.js';

/** Keys whose strings are data, not text to show: a call's own arguments and output, a diff's file texts, paths, images. */
const DATA_KEYS = new Set(['rawInput', 'rawOutput', 'oldText', 'newText', 'path', 'cwd', 'uri', 'data']);

/** `value` with every string meant to be shown escaped (escapeControls); data keys keep theirs. */
export function escapeForEditor<T>(value: T): T {
  if (typeof value === 'string') return escapeControls(value) as T;
  if (Array.isArray(value)) return value.map((v) => escapeForEditor(v)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, DATA_KEYS.has(k) ? v : escapeForEditor(v)])) as T;
  return value;
}
