// Projects the user trusted: only their settings may widen the default policy (allow rules,
// looser approval modes), as Gemini CLI's trusted folders do. Stored in ~/.devx/trusted-projects.json.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { worktreeOrigin } from './paths.js';

interface TrustFile {
  projects: Record<string, { trustedAt: string }>;
}

const fileOf = (devxHome: string) => path.join(devxHome, 'trusted-projects.json');

function read(devxHome: string): TrustFile {
  try {
    const v = JSON.parse(fs.readFileSync(fileOf(devxHome), 'utf8')) as TrustFile;
    return v && typeof v.projects === 'object' ? v : { projects: {} };
  } catch {
    return { projects: {} };
  }
}

/** Whether the user trusted `root`; a queued task's worktree runs with the trust of the checkout it was made from. */
export function isTrusted(devxHome: string, root: string): boolean {
  const { projects } = read(devxHome);
  return Boolean(projects[root]) || worktreeOrigin(root, Object.keys(projects)) !== undefined;
}

export function setTrusted(devxHome: string, root: string, trusted: boolean, now = new Date()): void {
  const t = read(devxHome);
  if (trusted) t.projects[root] = { trustedAt: now.toISOString() };
  else delete t.projects[root];
  mkdirOwnedSync(devxHome);
  writeFileAtomicSync(fileOf(devxHome), JSON.stringify(t, null, 2) + '\n');
}
