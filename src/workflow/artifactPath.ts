// Where a step's artifact may be saved. A workflow definition can come with a cloned repository, and
// devx writes the role's answer to `writes:` itself, outside the tools' path policy: so the path must
// be relative, stay inside the project (also after symlinks), and not name git's or devx's own files,
// a file the policy protects (.env, keys), anything another program or a later git command would run, or a
// file of the user's that git ignores.
import path from 'node:path';
import fs from 'node:fs';
import { execConfig, outsideOrProtected } from '../policy/pathPolicy.js';
import { realOrAsGiven } from '../util/realPath.js';
import { runGitSync } from '../util/safeGit.js';

/** Why a `writes:` template cannot be an artifact path, or null when it can. */
export function artifactTemplateProblem(p: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'contains control characters';
  if (path.isAbsolute(p) || /^[A-Za-z]:|^~/.test(p)) return 'must be a path relative to the project root';
  const segs = p.split(/[\\/]+/).filter(Boolean);
  if (segs.some((s) => s === '..')) return 'must not contain ".." segments';
  if (segs.some((s) => /^\.(git|devx)$/i.test(s))) return "must not be inside .git or .devx (git's and devx's own files)";
  return null;
}

/**
 * Why devx may not write (or show the next step) the artifact at `abs` now: a symlink out of the project, a
 * protected file; and for a write, what a person alone may approve a tool to write (configuration another
 * program runs commands from, a hard-linked file) and a file of the user's that git ignores (a virtualenv's
 * activate script): a workflow writes files it makes or the repository tracks.
 */
export function artifactTargetProblem(root: string, abs: string, intent: 'read' | 'write' = 'write'): string | null {
  const shown = path.relative(root, abs);
  const problem = outsideOrProtected(abs, [root], intent, shown)?.reason ?? null;
  if (problem || intent === 'read') return problem;
  const real = realOrAsGiven(abs);
  const runs = execConfig(root, real);
  if (runs) return `${shown} is configuration another program runs commands from (${runs}); only a person may approve writing it`;
  const st = fs.lstatSync(real, { throwIfNoEntry: false });
  if (st?.isFile() && st.nlink > 1) return `${shown} has ${st.nlink} hard links; it may be a file from outside the project`;
  if (st && runGitSync(root, ['check-ignore', '-q', '--', path.relative(root, real)]).status === 0)
    return `${shown} is a file of yours that git ignores; a workflow writes only files it makes or the repository tracks`;
  return null;
}
