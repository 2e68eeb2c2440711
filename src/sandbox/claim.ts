// The policy's claim for a command, as the sandbox enforces it (policy/decideCommand.ts makes it).
/**
 * What a command line was judged to do, as the sandbox enforces it: `read-only` (the whole filesystem
 * read-only, the project included), `write` (only the folders of the judged write targets writable),
 * `build` (the project writable except .git, devx's and other tools' configuration). `git`: the line
 * changes the repository (git add, commit...), so .git is writable except what decides what git runs.
 */
export interface SandboxClaim {
  profile: 'read-only' | 'write' | 'build';
  /** Absolute paths the line was judged to write (their folders become writable). */
  writes: string[];
  git?: boolean;
  /**
   * Paths a write scope (a queued task's workspace and plan file) lets the command write, bound writable
   * after the protected ones: the queue's workspace lies inside .devx, which stays read-only otherwise.
   */
  scopeBinds?: string[];
}
