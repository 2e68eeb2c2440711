// devx in a real pseudo-terminal (util-linux `script`, on every Debian machine): what a person at a
// terminal types, bracketed pastes included, and what the screen shows.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { DEVX_BIN } from './env.js';

export interface PtySession {
  child: ChildProcess;
  /** Everything printed so far, escape sequences stripped. */
  screen(): string;
  /** Raw bytes printed so far. */
  raw(): string;
  type(text: string): void;
  /** Types `text` as a bracketed paste (what a terminal sends when the program asked for it). */
  paste(text: string): void;
  waitFor(re: RegExp, ms?: number): Promise<void>;
  kill(): void;
}

const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z~]/g, '').replace(/\r/g, '');

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function startInPty(args: string[], cwd: string, env: NodeJS.ProcessEnv): PtySession {
  const cmd = [process.execPath, DEVX_BIN, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qfec', `stty cols 200 rows 50; exec ${cmd}`, '/dev/null'], {
    cwd,
    env: { ...env, TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    child,
    screen: () => strip(out),
    raw: () => out,
    type: (text) => child.stdin!.write(text),
    paste: (text) => child.stdin!.write(`\x1b[200~${text}\x1b[201~`),
    async waitFor(re, ms = 30_000) {
      const end = Date.now() + ms;
      while (!re.test(strip(out))) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`not seen: ${re}\n--- screen ---\n${strip(out).slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/** The session's exit code once it exits; rejects with the screen's end if it is still running after `ms`. */
export function exitOf(s: PtySession, ms = 20_000): Promise<number | null> {
  return new Promise<number | null>((resolve, reject) => {
    if (s.child.exitCode !== null) return resolve(s.child.exitCode);
    const t = setTimeout(() => reject(new Error(`still running after ${ms} ms:\n${s.screen().slice(-2000)}`)), ms);
    s.child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

/** Starts devx in a pty for a test; whatever a test started is killed after it. */
export function usePtySessions(): (args: string[], cwd: string, env: NodeJS.ProcessEnv) => PtySession {
  const sessions: PtySession[] = [];
  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
  });
  return (args, cwd, env) => {
    const s = startInPty(args, cwd, env);
    sessions.push(s);
    return s;
  };
}
