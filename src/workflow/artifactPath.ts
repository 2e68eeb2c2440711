// Where a step's artifact may be saved. A workflow definition can come with a cloned repository, and
// devx writes the role's answer to `writes:` itself, outside the tools' path policy: so the path must
// be relative, stay inside the project (also after symlinks), and not name git's or devx's own files,
// a file the policy protects (.env, keys) or anything a later git command would run.
import path from 'node:path';
import { outsideOrProtected } from '../policy/pathPolicy.js';

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

/** Why devx may not write (or show the next step) the artifact at `abs` now: a symlink out of the project, a protected file. */
export function artifactTargetProblem(root: string, abs: string, intent: 'read' | 'write' = 'write'): string | null {
  return outsideOrProtected(abs, [root], intent, path.relative(root, abs))?.reason ?? null;
}
