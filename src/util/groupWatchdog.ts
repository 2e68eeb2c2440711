// devx's children die with devx, even on kill -9 (when no exit hook runs): a small watchdog process,
// started with devx's first child, reads a pipe only devx holds the other end of. devx tells it each process
// group it starts and each it is done with; when the pipe closes (devx is gone, however it ended) the
// watchdog stops the groups still named that carry devx's owner marker: SIGTERM (gemini releases its lock
// file), then SIGKILL a second later for what is left. At a clean exit the exit hook has killed them already.
import { OWNER_ENV } from './reapGroups.js';

/**
 * The watchdog's program (`node -e`, argv[1] devx's pid; lines "+<pgid>" and "-<pgid>" on stdin). Without
 * /proc (no marker to read) it stops the groups as named, as crash recovery does.
 */
export const WATCHDOG_SOURCE = `
const fs = require('fs');
const marker = '${OWNER_ENV}=' + process.argv[1];
const groups = new Set();
let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  const lines = (rest + d).split('\\n');
  rest = lines.pop();
  for (const l of lines) {
    const g = Number(l.slice(1));
    if (!(g > 1)) continue;
    if (l[0] === '+') groups.add(g);
    else groups.delete(g);
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
function signal(gs, sig) {
  for (const g of gs) {
    try { process.kill(-g, sig); } catch {}
  }
}
process.stdin.on('end', () => {
  const gs = ours();
  if (!gs.length) return;
  signal(gs, 'SIGTERM');
  setTimeout(() => signal(ours(), 'SIGKILL'), 1000);
});
`;
