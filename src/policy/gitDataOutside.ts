// Where a repository in the project keeps its git data. Outside the sandbox, git run in the project reads
// whatever its `.git` names: a `.git` file or link, a worktree's `commondir` or an object store's
// `alternates` leading out of the project make `git log -p` print another repository's history (a
// dotfiles repository in the home, with the secrets once committed there). In the sandbox the home is
// not there, and git fails instead. A linked worktree that git itself registered in its main repository
// (`git worktree add`, by the user or by devx for a task) is theirs: its git data is read there, read-only
// in the sandbox; so is any, once the user trusted the project.
import fs from 'node:fs';
import path from 'node:path';
import { commonDirOf, gitDirOf } from '../sandbox/gitDirs.js';
import { isInside } from '../sandbox/resolvePath.js';
import { readTextOrNull } from '../util/readRegularFileSync.js';
import { isSymlink, realOrAsGiven } from '../util/realPath.js';

/** What leads out of `root` from the repository at `repoDir` ("sub/.git leads to /home/u/dotfiles/.git"), or null. */
export function gitDataOutside(root: string, repoDir: string): string | null {
  const entry = path.join(repoDir, '.git');
  const real = realGitDirOf(entry);
  if (!real) return null;
  const shown = (p: string) => path.relative(root, p) || '.';
  if (registeredWorktree(repoDir, real)) return null;
  if (!isInside(root, real)) return `${shown(entry)} leads to ${real}, outside the project; if this is a worktree of yours, \`devx trust\` lets git use it`;
  const common = commonDirOf(real);
  if (common) {
    const c = realOrAsGiven(common);
    if (!isInside(root, c))
      return `${shown(path.join(real, 'commondir'))} names ${c}, outside the project; if this is a worktree of yours, \`devx trust\` lets git use it`;
  }
  const alternates = readTextOrNull(path.join(real, 'objects', 'info', 'alternates'), 64 * 1024, 'any') ?? '';
  for (const line of alternates.split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const a = realOrAsGiven(path.resolve(real, 'objects', line));
    if (!isInside(root, a)) return `${shown(path.join(real, 'objects', 'info', 'alternates'))} names ${a}, outside the project`;
  }
  return null;
}

/**
 * The project's own git directory and its common one, where they lie outside the project and are the
 * user's: a registered worktree's, or any in a project the user trusted. The sandbox mounts them read-only.
 */
export function outsideGitDirs(root: string, trusted: boolean): string[] {
  const real = realGitDirOf(path.join(root, '.git'));
  if (!real) return [];
  if (!trusted && !registeredWorktree(root, real)) return [];
  const common = commonDirOf(real);
  const dirs = [real, ...(common ? [realOrAsGiven(common)] : [])];
  return [...new Set(dirs)].filter((d) => !isInside(root, d) && fs.existsSync(d));
}

/** The real folder a `.git` entry (a folder, a `gitdir:` file or a link) keeps its repository in, or null. */
function realGitDirOf(entry: string): string | null {
  const gitDir = isSymlink(entry) ? entry : gitDirOf(entry);
  return gitDir ? realOrAsGiven(gitDir) : null;
}

/**
 * Whether `gitDir` is a linked worktree's folder git registered for `repoDir`: `<main>/.git/worktrees/<name>`,
 * whose `gitdir` file names `repoDir/.git` and whose `commondir` is `<main>/.git`. A clone never carries
 * such a folder, so only the main repository's own git (run by its owner) made the link back.
 */
function registeredWorktree(repoDir: string, gitDir: string): boolean {
  const back = readTextOrNull(path.join(gitDir, 'gitdir'), 4096, 'any')?.trim();
  if (!back || realOrAsGiven(path.resolve(gitDir, back)) !== realOrAsGiven(path.join(repoDir, '.git'))) return false;
  const common = commonDirOf(gitDir);
  return common !== null && path.basename(path.dirname(gitDir)) === 'worktrees' && realOrAsGiven(common) === realOrAsGiven(path.dirname(path.dirname(gitDir)));
}
