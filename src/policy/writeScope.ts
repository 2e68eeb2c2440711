// A run that may write only some paths (a queued task: the queue's workspace, its plan file and the
// paths the task names). Part of the one policy decision (decide.ts): a file tool's write inside the
// scope needs no approval, a write outside it is denied; a command's claim must stay inside it (a
// command that changes the git repository is denied; one that runs project code may write only the
// scope, which the sandbox enforces).
import path from 'node:path';
import { isInside, realpathDeepest } from '../sandbox/resolvePath.js';
import { ALLOW, DENY, type PathIntent, type PolicyDecision, type PolicyTool } from './types.js';

export interface WriteScope {
  /** Real absolute paths: a folder covers everything under it, a file only itself. */
  paths: string[];
  /** Who set it, for the reason ("task task_123"). */
  owner: string;
  /** The project root, to show paths relative to it. */
  root: string;
}

/** A scope from paths relative to the project root (or absolute). */
export function makeWriteScope(root: string, paths: string[], owner: string): WriteScope {
  const real = (p: string) => {
    try {
      return realpathDeepest(path.resolve(root, p));
    } catch {
      return path.resolve(root, p);
    }
  };
  return { paths: [...new Set(paths.map(real))], owner, root: real(root) };
}

export function inWriteScope(scope: WriteScope, real: string): boolean {
  return scope.paths.some((p) => isInside(p, real));
}

const shown = (scope: WriteScope, p: string) => {
  const rel = path.relative(scope.root, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
};

export function describeWriteScope(scope: WriteScope): string {
  return scope.paths.map((p) => shown(scope, p)).join(', ');
}

/** Command asks that only say "this changes these files", whose targets the claim lists in full. */
const PLAIN_WRITE = /^command:(redirect-write|write:(rm|mv|cp|ln|tee|touch|mkdir|rmdir|sed|truncate))$/;

const outside = (scope: WriteScope, what: string): PolicyDecision =>
  DENY(
    `${what}, outside what ${scope.owner} may write (${describeWriteScope(scope)}); name more paths when you queue the task (--write <path>)`,
    'scope:outside-write',
  );

/**
 * Applies the scope to a decision already made. `writes`: the real paths a file tool writes (its
 * locations with intent write). Denies stay denies.
 */
export function applyWriteScope(scope: WriteScope, tool: PolicyTool, d: PolicyDecision, reals: { path: string; intent: PathIntent }[]): PolicyDecision {
  if (d.decision === 'deny') return d;
  if (tool.commandFor) {
    const claim = d.claim;
    if (!claim) return d;
    if (claim.git) return { ...outside(scope, 'this command changes the git repository'), claim };
    const out = claim.writes.find((w) => !inWriteScope(scope, w));
    if (out) return { ...outside(scope, `this command writes ${shown(scope, out)}`), claim };
    // A command that runs the project's code may write anywhere in the project: held to the scope instead.
    if (claim.profile === 'build') return { ...d, claim: { profile: 'write', writes: scope.paths, scopeBinds: scope.paths } };
    if (!claim.writes.length) return d;
    const held = { ...claim, scopeBinds: scope.paths.filter((p) => claim.writes.some((w) => isInside(p, w))) };
    // A plain file change (a redirection, cp, mv, rm, ...) whose every target is in the scope needs no approval.
    if (d.decision === 'ask' && claim.profile === 'write' && PLAIN_WRITE.test(d.rule))
      return { ...ALLOW(`writes only inside what ${scope.owner} may write (${d.reason})`, 'scope:inside-write'), claim: held };
    return { ...d, claim: held };
  }
  const writes = reals.filter((r) => r.intent === 'write');
  const out = writes.find((w) => !inWriteScope(scope, w.path));
  if (out) return outside(scope, `${tool.name} writes ${shown(scope, out.path)}`);
  // The plain "this tool changes files" ask is what the scope answers; any other ask (a settings rule,
  // a hard link, executable configuration) stays for a person.
  if (writes.length && d.decision === 'ask' && d.rule === 'tool:write') return ALLOW(`writes only inside what ${scope.owner} may write`, 'scope:inside-write');
  return d;
}
