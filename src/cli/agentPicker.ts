// The agent picker (`devx agent pick`, `/agent` without arguments): agents of both scopes, a fuzzy
// filter as you type, arrow keys to move, the description and tools of the selected agent, Enter to
// choose, Esc to cancel. fzf is used when it is installed (DEVX_PICKER=builtin keeps devx's own).
import { runProcessSync } from '../util/runSync.js';
import type { AgentDef, LoadedAgents } from '../personas/loadAgents.js';
import { findExecutable } from '../util/findExecutable.js';
import { escapeControls } from '../util/terminalText.js';
import { takeKeys } from './takeKeys.js';

export interface PickItem {
  name: string;
  scope: string;
  description: string;
  details: string[];
}

export const PICKER_TITLE = 'Pick an agent';

export function pickerItems(loaded: LoadedAgents): PickItem[] {
  // An agent file's text is drawn (here or by fzf) with its controls shown, never obeyed.
  const oneLine = (s: string) => escapeControls(s.replace(/\s+/g, ' '));
  const describe = (a: AgentDef): string[] => [
    escapeControls(`${a.name} (${a.scope}, ${a.file})`),
    oneLine(a.description),
    escapeControls(`tools: ${a.tools ? a.tools.join(', ') || '(none)' : '(inherits every permitted tool)'}`),
    escapeControls(`model: ${a.model ?? '(session default)'}${a.provider ? `  provider: ${a.provider}` : ''}`),
  ];
  // The project's and the user's agents; devx's shipped workflow roles stay out of the way.
  const items: PickItem[] = [...loaded.agents.values()]
    .filter((a) => a.scope !== 'builtin')
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((a) => ({ name: a.name, scope: a.scope, description: oneLine(a.description), details: describe(a) }));
  items.push({
    name: 'default',
    scope: '-',
    description: 'plain devx, no persona',
    details: ['default', 'devx without a persona: its own prompt and every permitted tool'],
  });
  return items;
}

/** Subsequence match: null when `query` is not in `text` in order; higher is better (contiguous, early, in the name). */
export function fuzzyScore(query: string, name: string, text: string): number | null {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (!q) return 0;
  const score = (hay: string): number | null => {
    const h = hay.toLowerCase();
    let s = 0;
    let last = -2;
    let at = 0;
    for (const ch of q) {
      const i = h.indexOf(ch, at);
      if (i < 0) return null;
      s += i === last + 1 ? 3 : 1;
      if (i === 0) s += 2;
      last = i;
      at = i + 1;
    }
    return s;
  };
  const inName = score(name);
  if (inName !== null) return inName + 100;
  return score(`${name} ${text}`);
}

export function filterItems(items: PickItem[], query: string): PickItem[] {
  return items
    .map((it, i) => ({ it, i, s: fuzzyScore(query, it.name, it.description) }))
    .filter((x) => x.s !== null)
    .sort((a, b) => b.s! - a.s! || a.i - b.i)
    .map((x) => x.it);
}

function pickWithFzf(fzf: string, items: PickItem[]): string | null {
  const lines = items.map((it) => [it.name, it.scope, it.description, it.details.join('\\n').replace(/\t/g, ' ')].join('\t')).join('\n');
  const r = runProcessSync(
    fzf,
    [
      '--delimiter',
      '\t',
      '--with-nth',
      '1,2,3',
      '--prompt',
      'agent> ',
      '--header',
      `${PICKER_TITLE} (Enter to choose, Esc to cancel)`,
      '--preview',
      "printf '%b\\n' {4}",
      '--preview-window',
      'down:5:wrap',
    ],
    {
      input: lines,
      stdio: ['pipe', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) return null;
  return r.stdout.split('\t')[0].trim() || null;
}

interface Key {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

/**
 * Runs the picker on a terminal; resolves with the chosen name, or null when cancelled. Other
 * keypress listeners on `input` (the REPL's readline) are detached meanwhile and restored after.
 */
export async function pickAgent(items: PickItem[], io: { input: NodeJS.ReadStream; out: NodeJS.WriteStream; env: NodeJS.ProcessEnv }): Promise<string | null> {
  const fzf = io.env.DEVX_PICKER === 'builtin' ? null : findExecutable('fzf', io.env);
  if (fzf) {
    const wasRaw = io.input.isRaw;
    if (wasRaw) io.input.setRawMode(false);
    try {
      return pickWithFzf(fzf, items);
    } finally {
      if (wasRaw) io.input.setRawMode(true);
    }
  }
  const { input, out } = io;
  const giveBack = takeKeys(input);
  let query = '';
  let sel = 0;
  let drawn = 0;
  const width = () => Math.max(40, (out.columns ?? 80) - 1);
  const cut = (s: string) => (s.length > width() ? `${s.slice(0, width() - 1)}…` : s);
  const draw = () => {
    const shown = filterItems(items, query);
    sel = Math.min(sel, Math.max(0, shown.length - 1));
    const nameW = Math.max(8, ...items.map((i) => i.name.length)) + 2;
    const rows = shown.slice(0, 12).map((it, i) => cut(`${i === sel ? '▸' : ' '} ${it.name.padEnd(nameW)}${it.scope.padEnd(9)}${it.description}`));
    const cur = shown[sel];
    const lines = [
      `${PICKER_TITLE} (type to filter, ↑/↓ to move, Enter to choose, Esc to cancel)`,
      `> ${query}`,
      ...(rows.length ? rows : ['  (no agent matches)']),
      ...(shown.length > 12 ? [`  … ${shown.length - 12} more`] : []),
      '──',
      ...(cur ? cur.details.map(cut) : []),
    ];
    out.write(`${drawn ? `\x1b[${drawn}A` : ''}\r\x1b[J${lines.join('\n')}\n`);
    drawn = lines.length;
    return shown;
  };
  try {
    let shown = draw();
    return await new Promise<string | null>((resolve) => {
      const onKey = (str: string | undefined, key: Key | undefined) => {
        const k = key ?? {};
        if (k.name === 'return' || k.name === 'enter') return done(shown[sel]?.name ?? null);
        if (k.name === 'escape' || (k.ctrl && (k.name === 'c' || k.name === 'd' || k.name === 'g'))) return done(null);
        if (k.name === 'up' || (k.ctrl && k.name === 'p')) sel = Math.max(0, sel - 1);
        else if (k.name === 'down' || (k.ctrl && k.name === 'n')) sel = Math.min(shown.length - 1, sel + 1);
        else if (k.name === 'backspace') {
          query = query.slice(0, -1);
          sel = 0;
        } else if (k.ctrl && k.name === 'u') {
          query = '';
          sel = 0;
        } else if (str && !k.ctrl && /^[\x20-\x7e]$/.test(str)) {
          query += str;
          sel = 0;
        } else return;
        shown = draw();
      };
      // A lone Esc: the keypress decoder would wait for the rest of an escape sequence.
      const onData = (d: Buffer | string) => {
        if (d.toString() === '\x1b') done(null);
      };
      const done = (v: string | null) => {
        input.off('keypress', onKey);
        input.off('data', onData);
        resolve(v);
      };
      input.on('keypress', onKey);
      input.on('data', onData);
    });
  } finally {
    giveBack();
  }
}
