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
  // Without an id: the session this start found crashed (the one its greeting offers), else where work last stopped.
  const crashed = id === undefined || id === 'latest' ? s.session.crashed : null;
  const from = crashed ?? pickResume(s.run.agent.root, id === 'latest' ? undefined : id, s.session.record.id);
  if (!from) return null;
  const { transcript, note } = s.session.resume(from);
  const history = s.run.history;
  // The session is usually the one history.json already holds (with this session's turns after it, or compacted
  // to fewer of its messages): the conversation goes on. Otherwise its transcript replaces it; the one replaced is
  // kept in its own session's transcript.
  const holds = (m: Message | undefined) => m !== undefined && history.some((h) => h.at === m.at && h.content === m.content);
  const continues = transcript.length > 0 && (holds(transcript[0]) || holds(transcript.at(-1)));
  const replaced = !continues && transcript.length > 0 && history.length > 0;
  if (!continues && transcript.length) history.splice(0, history.length, ...dropOrphanedToolResults(transcript));
  const msg: Message = { role: 'devx', content: note, at: new Date().toISOString() };
  history.push(msg);
  saveHistory(s.run.agent.historyPath, history);
  const before = replaced ? ` The conversation it replaces is kept in its sessions' transcripts (devx sessions lists them; /resume <id> brings one back).` : '';
  return `Resumed session ${from.id} (${from.status}); checkpoint and conversation restored.${before}`;
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
