// Opens the person's editor on one file, as git does: $VISUAL / $EDITOR is a shell command of theirs (it may
// carry arguments: `code --wait`), and the file goes to it as an argument of its own ("$@"), never spliced into
// that command's text, so a file name with `;`, `$(...)` or a space is a name, not more shell.
import type { SpawnSyncReturns } from 'node:child_process';
import { runProcessSync } from './runSync.js';

/** The editor the environment names (VISUAL, then EDITOR, then vi). */
export function editorOf(env: NodeJS.ProcessEnv): string {
  return env.VISUAL || env.EDITOR || 'vi';
}

/** Runs `editor` on `file` with the terminal; its exit status says whether the edit was saved. */
export function runEditorSync(editor: string, file: string, env?: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return runProcessSync('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit', ...(env ? { env } : {}) });
}
