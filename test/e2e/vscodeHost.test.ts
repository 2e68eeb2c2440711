// The VS Code extension in a real VS Code: code-server with the .vsix installed, driven by
// headless Chromium through playwright-core. "devx: Ask about selection" on a file with a type error sends
// the file, the lines and the TypeScript diagnostic to the model (the real devx, the fake API); the edit
// devx proposes opens in the diff editor; "devx: Accept proposed edit" writes the file; "devx: Start
// session in terminal" starts the devx REPL in the workspace folder; the audit log and an agent from
// "devx: Run agent…" too.
//
// Opt-in, as it needs what devx does not depend on, and is slow: DEVX_CODE_SERVER=<path to a
// code-server binary> (code-server 4.100.3 runs on Node 20; editors/vscode/README.md says how to install it), Chromium at
// /usr/bin/chromium (or DEVX_CHROMIUM). Without them the test is skipped and says why.
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeProject, tempDir } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';

const CODE_SERVER = process.env.DEVX_CODE_SERVER;
const CHROMIUM = process.env.DEVX_CHROMIUM ?? '/usr/bin/chromium';
const VSIX = path.join(REPO_ROOT, 'editors', 'vscode', 'devx-vscode.vsix');

function whySkip(): string | null {
  if (!CODE_SERVER) return 'DEVX_CODE_SERVER is not set (the path of a code-server binary); this test runs code-server and Chromium';
  if (!fs.existsSync(CODE_SERVER)) return `no code-server at ${CODE_SERVER}`;
  if (!fs.existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or DEVX_CHROMIUM)`;
  try {
    createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return 'playwright-core is not installed';
  }
  return null;
}
const skip = whySkip();
if (skip) process.stderr.write(`vscodeHost.test.ts skipped: ${skip}\n`);

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

const CALC = ['export function add(a: number, b: number): number {', '  const sum: number = `${a}${b}`;', '  return sum;', '}', ''].join('\n');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The command lines of live processes whose working directory is `dir`. */
function commandLinesUnder(dir: string): string[] {
  return processesUnder(dir).flatMap((pid) => {
    try {
      return [fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')];
    } catch {
      return [];
    }
  });
}

describe.skipIf(skip)('the VS Code extension in code-server', () => {
  it('asks about a selection with its diagnostic, shows the proposed edit as a diff, accepts it; starts a terminal session', async () => {
    if (!fs.existsSync(VSIX)) execFileSync('npm', ['run', 'vsix'], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
    const project = makeProject({ 'src/calc.ts': CALC, 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true } }) });
    const file = path.join(project, 'src', 'calc.ts');
    const userData = tempDir('devx-code-user-');
    const extensions = tempDir('devx-code-ext-');
    const env = fakeEnv(fake, home);
    execFileSync(CODE_SERVER!, ['--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', VSIX], {
      env,
      stdio: 'pipe',
      timeout: 60_000,
    });
    expect(fs.readdirSync(extensions).some((d) => d.startsWith('devx.devx-vscode-'))).toBe(true);
    fs.mkdirSync(path.join(home, '.devx', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews diffs\n---\nYou review.');
    fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'devx.path': `${process.execPath} ${DEVX_BIN}`,
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.ignoreRecommendations': true,
        'workbench.tips.enabled': false,
        'update.mode': 'none',
      }),
    );
    fake.push(
      { text: 'TOOL_CALL: edit_file | path=src/calc.ts | old_text=`${a}${b}` | new_text=a + b' },
      { text: 'Fixed: the template literal made a string.' },
    );

    const port = await freePort();
    const server: ChildProcess = spawn(
      CODE_SERVER!,
      [
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--user-data-dir',
        userData,
        '--extensions-dir',
        extensions,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        project,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    children.push(server);
    let serverLog = '';
    server.stdout!.on('data', (d) => (serverLog += d));
    server.stderr!.on('data', (d) => (serverLog += d));
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launchPersistentContext(tempDir('devx-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 1400, height: 900 },
    });
    try {
      await until(() => /HTTP server listening/.test(serverLog), 30_000).catch(() => {
        throw new Error(`code-server did not start:\n${serverLog}`);
      });
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`);
      await page.waitForSelector('.monaco-workbench', { timeout: 30_000 });
      const palette = async (command: string) => {
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible' });
        await input.fill(`>${command}`);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor({ timeout: 15_000 });
        await page.keyboard.press('Enter');
      };

      // Open src/calc.ts, wait for TypeScript's diagnostic, select everything.
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').fill('calc.ts');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'calc.ts' }).first().waitFor();
      await page.keyboard.press('Enter');
      await page.locator('.monaco-editor .view-lines', { hasText: 'export function add' }).waitFor({ timeout: 20_000 });
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+A');

      await palette('devx: Ask about selection');
      const question = page.locator('.quick-input-widget input');
      await question.waitFor({ state: 'visible' });
      await question.fill('Why does tsc complain?');
      await page.keyboard.press('Enter');

      // devx proposes the edit: the diff editor shows it; accepting writes the file.
      await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 60_000 });
      await page.locator('.tab', { hasText: 'proposed by devx' }).first().waitFor();
      expect(fs.readFileSync(file, 'utf8')).toBe(CALC);
      await palette('devx: Accept proposed edit');
      await until(() => fs.readFileSync(file, 'utf8').includes('const sum: number = a + b;'), 30_000);
      await until(() => fake.modelCalls.length >= 2, 30_000);
      const sent = fake.modelCalls[0].promptText;
      expect(sent).toContain('Why does tsc complain?');
      expect(sent).toContain('File: src/calc.ts (lines 1-4, typescript');
      expect(sent).toContain('2|   const sum: number = `${a}${b}`;');
      expect(sent).toMatch(/src\/calc\.ts:2 error \(ts 2322\): Type 'string' is not assignable to type 'number'\./);
      expect(fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8')).toMatch(/"tool":"edit_file"/);

      // The audit log in an output channel.
      await palette('devx: Show audit log');
      await page
        .locator('.monaco-editor .view-lines', { hasText: /edit_file\s+ask/ })
        .first()
        .waitFor({ timeout: 30_000 });

      // The ACP session ends; an agent picked from devx's list runs in a terminal.
      await palette("devx: Stop the editor's devx sessions");
      await until(() => !commandLinesUnder(project).some((c) => c.includes('--acp')), 15_000);
      fake.push({ text: 'Looks fine to me.' });
      await palette('devx: Run agent…');
      const pick = page.locator('.quick-input-widget input');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Reviews diffs' }).first().waitFor({ timeout: 30_000 });
      await pick.fill('reviewer');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget', { hasText: 'devx agent run reviewer' }).waitFor();
      await pick.fill("review calc.ts, it's short");
      await page.keyboard.press('Enter');
      await until(() => fake.modelCalls.some((c) => c.promptText.includes("review calc.ts, it's short")), 60_000);
      expect(fake.modelCalls.at(-1)!.systemText).toContain('You review.');
      await until(() => !commandLinesUnder(project).some((c) => c.includes('agent run')), 30_000);

      // A devx REPL starts in an integrated terminal in the folder.
      await palette('devx: Start session in terminal');
      await until(() => commandLinesUnder(project).some((c) => c.includes(DEVX_BIN) && !c.includes('--acp')), 30_000);
    } finally {
      await browser.close();
      try {
        process.kill(-server.pid!, 'SIGKILL');
      } catch {
        // gone
      }
      for (const pid of processesUnder(project)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  }, 240_000);
});
