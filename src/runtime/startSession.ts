// Shared start and end of a session for the REPL, `devx run` and `devx handoff`.
import { Session, SessionBusyError, orientation, pickResume } from '../session/session.js';
import { createAgent, type Agent, type AgentOptions } from './createAgent.js';
import { findProjectRoot } from '../config/paths.js';
import { ensureDevxDir } from '../session/projectFiles.js';
import { saveHistory } from '../session/history.js';
import type { Message } from '../agent/messages.js';
import type { Turn } from '../session/handoff.js';
import type { AgentEvent } from '../agent/loop.js';
import { createHistoryWriter } from '../session/historyWriter.js';
import { createAuditSubscriber } from '../audit/auditLog.js';

export const EXIT_BUSY = 4;

export interface Started {
  agent: Agent;
  session: Session;
  orientation: string;
}

/** Takes the project lock, then builds the agent around the session. Throws SessionBusyError. */
export async function startSession(opts: Omit<AgentOptions, 'session'>): Promise<Started> {
  const root = findProjectRoot(opts.cwd);
  ensureDevxDir(root);
  const session = Session.start({ root });
  try {
    const agent = await createAgent({ ...opts, session });
    return { agent, session, orientation: orientation(agent.root, session) };
  } catch (err) {
    session.abandon();
    throw err;
  }
}

/** Applies a resume: restores the checkpoint and the conversation, and tells the model. */
export function applyResume(s: Started, id: string | undefined): string | null {
  const from = pickResume(s.agent.root, id === 'latest' ? undefined : id, s.session.record.id);
  if (!from) return null;
  const { transcript, note } = s.session.resume(from);
  const history = s.agent.history;
  // The crashed session is usually the one history.json already ends with; otherwise load its transcript.
  const continues = transcript.length > 0 && history.length >= transcript.length && history[history.length - transcript.length]?.at === transcript[0].at;
  if (!continues && transcript.length) history.splice(0, history.length, ...transcript);
  const msg: Message = { role: 'devx', content: note, at: new Date().toISOString() };
  history.push(msg);
  saveHistory(s.agent.historyPath, history);
  return `Resumed session ${from.id} (${from.status}); checkpoint and conversation restored.`;
}

/**
 * The subscribers every session-owning command attaches: the history writer, the audit log (for the
 * session and its spawn_gemini sub-sessions) and the session record. Returns one listener for them all.
 */
export function sessionSink(s: Started): (e: AgentEvent) => void {
  const persist = createHistoryWriter(s.agent.root, s.agent.historyPath, s.agent.history);
  const audit = createAuditSubscriber(s.agent.auditPath, s.agent.session);
  s.agent.subListeners.push(audit);
  return (e) => {
    persist(e);
    audit(e);
    s.session.onEvent(e);
  };
}

export async function endSession(s: Started, turn?: Turn): Promise<string> {
  const r = await s.session.end({
    handoff: s.agent.settings.handoff,
    turn,
    backend: s.agent.deps.backend,
    systemPrompt: 'You write concise, factual engineering handoff notes in Markdown.',
    history: s.agent.history,
  });
  if (r.handoff === 'none') return '';
  return r.handoff === 'model' ? 'HANDOFF.md written.' : `HANDOFF.md written from the session record${r.error ? ` (the model could not draft it: ${r.error.slice(0, 200)})` : ''}.`;
}

export { SessionBusyError };
