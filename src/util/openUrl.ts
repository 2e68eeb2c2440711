// Opens a URL in the person's browser: $BROWSER (Claude Code and Gemini CLI honour it too), else the
// platform's opener. Never waits for the browser; a machine without one (SSH, CI) just has the printed URL.
import type { ProcessRunner } from './processRunner.js';

export function browserCommand(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): { file: string; args: string[] } | null {
  if (env.BROWSER) {
    const [file, ...rest] = env.BROWSER.split(':')[0]!.trim().split(/\s+/);
    return file ? { file, args: [...rest] } : null;
  }
  if (platform === 'darwin') return { file: 'open', args: [] };
  if (platform === 'win32') return { file: 'rundll32', args: ['url.dll,FileProtocolHandler'] };
  // Linux and the BSDs: only where a desktop session can show it.
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return { file: 'xdg-open', args: [] };
}

/** Starts the browser on `url`; resolves false when there is none or it failed to start. */
export async function openUrl(url: string, env: NodeJS.ProcessEnv, runner: ProcessRunner, cwd: string): Promise<boolean> {
  const cmd = browserCommand(env);
  if (!cmd) return false;
  const args = cmd.args.some((a) => a.includes('%s')) ? cmd.args.map((a) => a.replace('%s', url)) : [...cmd.args, url];
  try {
    const r = await runner(cmd.file, args, { cwd, env, timeoutMs: 30_000 });
    return r.exitCode === 0;
  } catch {
    return false;
  }
}
