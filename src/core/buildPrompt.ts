// Builds the stdin prompt for one model call: project memory, handoff, installed extensions' context
// files, history, and the current turn, kept under a character budget. Old tool results are elided first,
// then the oldest messages, with notes saying what was dropped, so prompt size stays bounded however long
// the session runs.
import type { Message } from './messages.js';

export interface PromptInputs {
  memory?: string;
  handoff?: string;
  /** Extensions' context files (Gemini CLI's GEMINI.md), each under its own heading. */
  context?: { title: string; text: string }[];
  messages: Message[];
  /** Index in `messages` where the current turn (its user input) starts. */
  turnStart: number;
  budgetChars: number;
}

export interface BuiltPrompt {
  text: string;
  elidedToolResults: number;
  elidedMessages: number;
}

const SECTION_CAP = 20_000;
const CLOSING = '\n\n# Your move\nContinue the task: reply with TOOL_CALL lines, or with your final answer in prose if you are done.\n';

const HEADINGS: Record<Message['role'], string> = {
  user: '## User',
  assistant: '## Assistant (you)',
  tool: '## Tool results (from devx)',
  devx: '## Note from devx',
};

function capSection(name: string, text: string | undefined): string {
  if (!text || !text.trim()) return '';
  const body = text.length > SECTION_CAP ? `${text.slice(0, SECTION_CAP)}\n[${name} truncated: ${text.length - SECTION_CAP} more characters]` : text;
  return `# ${name}\n${body.trim()}\n\n`;
}

const attachedKind = (mime: string) =>
  mime === 'application/pdf' ? 'PDF' : mime.startsWith('audio/') ? 'audio' : mime.startsWith('video/') ? 'video' : 'image';

/** A message as the prompt shows it (heading, text, image lines). */
export function renderMessage(m: Message): string {
  const images = (m.images ?? []).map((i) => `\n[${attachedKind(i.mimeType)} attached: ${i.path} (${i.mimeType}, ${i.bytes} bytes)]`).join('');
  return `${HEADINGS[m.role]}\n${m.content}${images}\n\n`;
}

function headOf(inp: Pick<PromptInputs, 'memory' | 'handoff' | 'context'>): string {
  return (
    capSection('Project memory (MEMORY.md)', inp.memory) +
    capSection('Handoff from the last session (HANDOFF.md)', inp.handoff) +
    (inp.context ?? []).map((c) => capSection(c.title, c.text)).join('')
  );
}

/** The characters the conversation may take in a prompt: the budget less memory, handoff, context and the closing. */
export function conversationRoom(inp: Pick<PromptInputs, 'memory' | 'handoff' | 'context' | 'budgetChars'>): number {
  return Math.max(1000, inp.budgetChars - headOf(inp).length - CLOSING.length - 200);
}

/** The characters these messages take in a prompt before anything is elided. */
export function renderedChars(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + renderMessage(m).length, 0);
}

export function buildPrompt(inp: PromptInputs): BuiltPrompt {
  const head = headOf(inp);
  const available = conversationRoom(inp);
  const parts = inp.messages.map(renderMessage);
  let size = parts.reduce((n, p) => n + p.length, 0);
  let elidedToolResults = 0;
  // A summary of compacted messages stays when older messages are dropped: it stands for many in little room.
  const pinned = inp.messages[0]?.summaryOf && inp.turnStart > 0 ? 1 : 0;
  let firstKept = pinned;

  // 1. Elide tool results, oldest first, keeping the newest one intact.
  const lastTool = inp.messages.map((m) => m.role).lastIndexOf('tool');
  for (let i = 0; i < parts.length && size > available; i++) {
    if (inp.messages[i].role !== 'tool' || i === lastTool) continue;
    const stub = renderMessage({ ...inp.messages[i], content: `[tool results elided to save context: ${inp.messages[i].content.length} characters]` });
    size -= parts[i].length - stub.length;
    parts[i] = stub;
    elidedToolResults++;
  }
  // 2. Drop the oldest messages before the current turn.
  while (size > available && firstKept < Math.min(inp.turnStart, parts.length)) {
    size -= parts[firstKept].length;
    firstKept++;
  }
  // A tool result whose call was dropped goes with it: the conversation never starts with an orphan.
  while (firstKept < Math.min(inp.turnStart, parts.length) && inp.messages[firstKept].role === 'tool') size -= parts[firstKept++].length;
  let convo = (pinned ? parts[0] : '') + parts.slice(firstKept).join('');
  const elidedMessages = firstKept - pinned;
  const notes: string[] = [];
  if (elidedMessages > 0) notes.push(`[${elidedMessages} earlier messages${pinned ? ' (after the summary)' : ''} were elided to fit the context budget]`);
  if (elidedToolResults > 0) notes.push(`[${elidedToolResults} older tool results were elided; call the tools again if you need them]`);
  // 3. The current turn alone is too big: keep its start (the request) and its newest end.
  if (convo.length > available) {
    const headKeep = Math.floor(available * 0.3);
    const tailKeep = available - headKeep - 100;
    convo = `${convo.slice(0, headKeep)}\n[... ${convo.length - headKeep - tailKeep} characters of this turn elided ...]\n${convo.slice(convo.length - tailKeep)}`;
    notes.push('[parts of the current turn were elided to fit the context budget]');
  }
  const text = `${head}# Conversation\n${notes.length ? notes.join('\n') + '\n\n' : ''}${convo}${CLOSING}`;
  return { text, elidedToolResults, elidedMessages };
}
