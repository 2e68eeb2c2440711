// How the extension finds and starts devx: the `devx.path` setting (a command line such as `devx`,
// `/opt/bin/devx` or `npx devx`), else `devx` on PATH, else `npx devx`. No `vscode` import here.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';

/** Splits a command line into words: whitespace separates, '...' and "..." group, \ escapes outside single quotes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

/** Whether an executable named `name` is on PATH (PATHEXT on Windows). */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | null {
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  const exts = platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs)
    for (const ext of exts) {
      const file = path.join(dir, name + ext);
      try {
        fs.accessSync(file, fs.constants.X_OK);
        if (fs.statSync(file).isFile()) return file;
      } catch {
        // not here
      }
    }
  return null;
}

/** The devx command as argv: the setting when given, else `devx` when on PATH, else `npx devx`. */
export function resolveDevx(setting: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const given = setting?.trim();
  if (given) {
    const argv = splitCommandLine(given);
    if (argv.length) return argv;
  }
  return onPath('devx', env) ? ['devx'] : ['npx', 'devx'];
}

/** A word quoted for a POSIX shell (the integrated terminal's sendText), left bare when it is safe. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line for a terminal: argv quoted and joined. */
export function commandLine(argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}

/** Runs devx with arguments and returns its stdout (for `--json` listings); rejects with its stderr on failure. */
export function captureDevx(argv: string[], args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 60_000): Promise<string> {
  const [cmd, ...pre] = argv;
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      [...pre, ...args],
      { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, shell: process.platform === 'win32', windowsHide: true },
      (err, stdout, stderr) => {
        if (err && !stdout.trim()) reject(new Error(`${commandLine([...argv, ...args])} failed: ${(stderr || err.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}
