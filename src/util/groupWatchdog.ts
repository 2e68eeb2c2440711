// devx's children die with devx, even on kill -9 (when no exit hook runs): a small watchdog process,
// started with devx's first child, reads a pipe only devx holds the other end of. devx tells it each process
// group it starts and each it is done with; when the pipe closes (devx is gone, however it ended) the
// watchdog stops the groups still named that carry devx's owner marker, and every other process carrying it
// (what left its group: a background command's `setsid` child): SIGTERM (gemini releases its lock file), then
// SIGKILL a second later for what is left. At a clean exit the exit hook has killed them already.
import { OWNER_ENV } from './reapGroups.js';

/**
 * The watchdog's program (`node -e`, argv[1] devx's pid; lines "+<pgid>" and "-<pgid>" on stdin, and
 * "+p<pid>"/"-p<pid>" for a child that is no group leader, an MCP server: it and its marked descendants).
 * Without /proc (no marker to read) it stops the groups as named, as crash recovery does.
 */
export const WATCHDOG_SOURCE = `
const fs = require('fs');
const marker = '${OWNER_ENV}=' + process.argv[1];
const groups = new Set();
const singles = new Set();
let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  const lines = (rest + d).split('\\n');
  rest = lines.pop();
  for (const l of lines) {
    const set = l[1] === 'p' ? singles : groups;
    const g = Number(l.slice(set === singles ? 2 : 1));
    if (!(g > 1)) continue;
    if (l[0] === '+') set.add(g);
    else set.delete(g);
  }
});
const hasProc = fs.existsSync('/proc/self/stat');
function ours() {
  if (!hasProc) return [...groups];
  const live = new Set();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e)) continue;
    try {
      const st = fs.readFileSync('/proc/' + e + '/stat', 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const g = Number(f[2]);
      if (!groups.has(g) || live.has(g) || f[0] === 'Z' || f[0] === 'X') continue;
      if (fs.readFileSync('/proc/' + e + '/environ', 'utf8').split('\\0').includes(marker)) live.add(g);
    } catch {}
  }
  return [...live];
}
// The named single processes and their descendants that still carry the marker (found before any is
// signalled: a killed parent's children are re-parented).
function oursSingle() {
  if (!hasProc || !singles.size) return [];
  const parent = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const st = fs.readFileSync('/proc/' + e + '/stat', 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      if (f[0] === 'Z' || f[0] === 'X') continue;
      if (fs.readFileSync('/proc/' + e + '/environ', 'utf8').split('\\0').includes(marker)) parent.set(Number(e), Number(f[1]));
    } catch {}
  }
  const named = (p) => { for (let i = 0; p > 1 && i < 64; i++, p = parent.get(p)) if (singles.has(p)) return true; return false; };
  return [...parent.keys()].filter(named);
}
// Every live process carrying the marker, whatever its group (none is the watchdog: it has no devx environment).
function marked() {
  if (!hasProc) return [];
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const st = fs.readFileSync('/proc/' + e + '/stat', 'utf8');
      const state = st[st.lastIndexOf(')') + 2];
      if (state === 'Z' || state === 'X') continue;
      if (fs.readFileSync('/proc/' + e + '/environ', 'utf8').split('\\0').includes(marker)) out.push(Number(e));
    } catch {}
  }
  return out;
}
function signal(gs, sig, each) {
  for (const g of gs) {
    try { process.kill(each ? g : -g, sig); } catch {}
  }
}
process.stdin.on('end', () => {
  const gs = ours();
  const ps = [...new Set([...oursSingle(), ...marked()])];
  if (!gs.length && !ps.length) return;
  signal(gs, 'SIGTERM');
  signal(ps, 'SIGTERM', true);
  setTimeout(() => { signal(ours(), 'SIGKILL'); signal([...new Set([...ps, ...marked()])], 'SIGKILL', true); }, 1000);
});
`;
