// Where the user's own programs that devx starts (their hooks, their MCP servers) run in a project that is not
// trusted: not in the project, whose files would be picked up by the folder a program starts in (`python -m x`
// imports the project's x.py, `npx tool` runs the project's node_modules/.bin/tool). An empty folder of devx's
// own; the hook still hears the project's path (cwd in its input, CLAUDE_PROJECT_DIR), and a server its roots.
import path from 'node:path';
import { mkdirOwnedSync } from './ownedFile.js';

/**
 * The folder the user's hooks and MCP servers start in: the project once trusted, else an empty one of devx's
 * (made only when there is a program to start: `programs` false leaves the home as it is).
 */
export function programsWorkDir(root: string, trusted: boolean, devxHome: string, programs = true): string {
  if (trusted || !programs) return root;
  const dir = path.join(devxHome, 'outside-project');
  mkdirOwnedSync(dir, 0o700);
  return dir;
}
