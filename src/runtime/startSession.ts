// The start and end of a session around an AgentRun, for the REPL, `devx run` and `devx handoff`:
// the project lock, the session record, crash recovery, resume and the handoff at the end.
import { Session, SessionBusyError, orientation, pickResume } from '../session/session.js';
import { findProjectRoot } from '../config/paths.js';
import { ensureDevxDir } from '../session/projectFiles.js';
import { saveHistory } from '../session/history.js';
import { setAsideLine } from '../session/setAside.js';
import { dropOrphanedToolResults, type Message } from '../core/messages.js';
import type { Turn } from '../session/handoff.js';
import { AgentRun, PersonaError, type AgentRunOptions } from './agentRun.js';

export interface Started {
  run: AgentRun;
  session: Session;
  orientation: string;
}

/** Takes the project lock, then builds the run (AgentRun) around the session. Throws SessionBusyError. */
export async function startSession(opts: Omit<AgentRunOptions, 'session' | 'history' | 'childObserver'> & { history?: 'project' | 'fresh' }): Promise<Started> {
  const root = findProjectRoot(opts.cwd);
  ensureDevxDir(root);
  const session = Session.start({ root });
  try {
    const run = await AgentRun.create({ ...opts, session, childObserver: session.childObserver, history: opts.history ?? 'project' });
    // After the lock and the conversation: what they set aside is named too.
    const aside = setAsideLine(run.agent.root);
    if (aside) run.agent.warnings.push(aside);
    run.subscribe(session.onEvent);
    useDefaultAgent(run, opts.persona);
    await run.sessionStart();
    return { run, session, orientation: orientation(run.agent.root, session) };
  } catch (err) {
    session.abandon();
    throw err;
  }
}

/** `defaultAgent` from settings is the persona a session starts with, unless one was given; a missing one is a warning. */
function useDefaultAgent(run: AgentRun, given: AgentRunOptions['persona']): void {
  const name = run.agent.settings.defaultAgent;
  if (!name || given !== undefined) return;
  try {
    run.usePersona(name);
  } catch (err) {
    if (!(err instanceof PersonaError)) throw err;
    run.agent.warnings.push(`defaultAgent "${name}" in settings: ${err.message.split('\n')[0]}; starting as plain devx`);
  }
}

/** Applies a resume: restores the checkpoint and the conversation, and tells the model. */
export function applyResume(s: Started, id: string | undefined): string | null {
  const from = pickResume(s.run.agent.root, id === 'latest' ? undefined : id, s.session.record.id);
  if (!from) return null;
  const { transcript, note } = s.session.resume(from);
  const history = s.run.history;
  // The crashed session is usually the one history.json already ends with; otherwise load its transcript.
  // A compacted history ends with the session's last message but holds fewer of its messages: it continues too.
  const last = transcript.at(-1);
  const continues =
    transcript.length > 0 &&
    ((history.length >= transcript.length && history[history.length - transcript.length]?.at === transcript[0].at) ||
      (history.at(-1)?.at === last?.at && history.at(-1)?.content === last?.content));
  if (!continues && transcript.length) history.splice(0, history.length, ...dropOrphanedToolResults(transcript));
  const msg: Message = { role: 'devx', content: note, at: new Date().toISOString() };
  history.push(msg);
  saveHistory(s.run.agent.historyPath, history);
  return `Resumed session ${from.id} (${from.status}); checkpoint and conversation restored.`;
}

/**
 * How the session's HANDOFF.md is written: 'model' drafts it with one model call, 'plain' writes it
 * from the session record, 'none' writes nothing.
 */
export type HandoffDraft = 'model' | 'plain' | 'none';

/** An interactive session that did work (changed a file, or a turn ended with an answer) earns a handoff; others write none. */
export function handoffFor(s: Started, opts: { asked?: boolean; interactive?: boolean; cancelled?: boolean; failed?: boolean }): HandoffDraft {
  const setting = s.run.agent.settings.handoff;
  if (setting === 'off') return 'none';
  // A cancel or a failed model call never waits on another model call.
  const quick = opts.cancelled || opts.failed ? 'plain' : setting;
  if (opts.asked) return quick;
  if (!opts.interactive || opts.cancelled) return 'none';
  return s.session.worked ? quick : 'none';
}

export async function endSession(s: Started, opts: { draft: HandoffDraft; turn?: Turn; signal?: AbortSignal }): Promise<string> {
  const r = await s.session.end({
    handoff: opts.draft === 'none' ? 'off' : opts.draft,
    turn: opts.turn,
    backend: s.run.agent.deps.backend,
    systemPrompt: 'You write concise, factual engineering handoff notes in Markdown.',
    history: s.run.history,
    signal: opts.signal,
  });
  if (r.handoff === 'none') return '';
  return r.handoff === 'model'
    ? 'HANDOFF.md written (drafted by the model).'
    : `HANDOFF.md written from the session record${opts.signal?.aborted ? ' (the draft was skipped)' : r.error ? ` (the model could not draft it: ${r.error.slice(0, 200)})` : ''}.`;
}

export { SessionBusyError };
