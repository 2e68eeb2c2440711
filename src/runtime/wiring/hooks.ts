// The user's hooks of one run (runtime/hooks.ts runs them): none when no hook is configured. Their events go
// where AgentRun points the run's `hookEvents`.
import path from 'node:path';
import type { ResolvedSettings } from '../../config/settings.js';
import type { AgentEvent } from '../../core/loop.js';
import type { PolicyEngine } from '../../policy/decide.js';
import type { ApprovalRequest } from '../../tools/runToolCall.js';
import type { ProcessRunner } from '../../util/processRunner.js';
import { HookRunner } from '../hooks.js';

export function makeHooks(o: {
  settings: ResolvedSettings;
  root: string;
  workDir: string;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  policy: PolicyEngine;
  session?: { record: { id: string } };
  emit: (e: AgentEvent) => void;
}): HookRunner | null {
  const { root, session } = o;
  if (!o.settings.hooks.length) return null;
  return new HookRunner(o.settings.hooks, {
    root,
    workDir: o.workDir,
    runner: o.runner,
    session: () => session?.record.id ?? 'none',
    env: o.env,
    emit: o.emit,
    mode: () => o.policy.opts.mode,
    transcript: () => (session ? path.join(root, '.devx', 'sessions', `${session.record.id}.transcript.json`) : path.join(root, '.devx', 'history.json')),
  });
}

/** Notification hooks hear that devx waits for the person (a desktop notifier), as Claude Code tells them; undefined when none is set. */
export function notifierFor(hooks: HookRunner | null): ((req: ApprovalRequest) => void) | undefined {
  if (!hooks?.has('Notification')) return undefined;
  return (req) =>
    void hooks.run('Notification', { message: `devx needs your permission to use ${req.tool}`, notification_type: 'permission_prompt' }).catch(() => undefined);
}
