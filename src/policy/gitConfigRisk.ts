// Whether a repository in the project sets a git key that names a program no value switches off
// (diff.external, diff.<driver>.command): outside the sandbox, git asks there (util/safeGit.ts).
import path from 'node:path';
import { repoConfigRiskSync } from '../util/safeGit.js';
import { gitEntriesOf } from '../sandbox/projectScan.js';

/** The first such key and the file that sets it ("diff.external in .git/config"), or null. */
export function unneutralizedGitKey(root: string): string | null {
  for (const dir of new Set([root, ...gitEntriesOf(root).map((e) => path.dirname(e))])) {
    const hit = repoConfigRiskSync(dir).unneutralized[0];
    if (hit) return `${hit.key} in ${path.isAbsolute(hit.origin) ? path.relative(root, hit.origin) : hit.origin}`;
  }
  return null;
}
