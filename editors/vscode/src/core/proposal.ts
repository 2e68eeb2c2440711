// devx's permission requests (session/request_permission) as proposals the editor shows, and the
// user's choice as the answer. devx sends a file edit's planned change as an ACP diff (path, old text,
// new text): the extension opens it in VS Code's diff editor. No `vscode` import.
import type * as acp from '@agentclientprotocol/sdk';

export interface ProposedDiff {
  /** Absolute path of the file. */
  path: string;
  /** The text before (null: a new file). */
  oldText: string;
  newText: string;
  isNew: boolean;
}

export interface Proposal {
  sessionId: string;
  toolCallId: string;
  /** One line: what devx wants to do ("edit_file a.txt", "run_command npm test"). */
  title: string;
  kind?: string;
  /** File edits, each to show as a diff. */
  diffs: ProposedDiff[];
  /** What it would do when not an edit (a command's preview). */
  preview?: string;
  /** The files it touches. */
  locations: string[];
  rawInput?: unknown;
}

export type Choice = 'accept' | 'acceptAlways' | 'reject';

export function proposalFromPermission(req: acp.RequestPermissionRequest): Proposal {
  const tc = req.toolCall;
  const diffs: ProposedDiff[] = [];
  const previews: string[] = [];
  for (const c of tc.content ?? []) {
    if (c.type === 'diff') diffs.push({ path: c.path, oldText: c.oldText ?? '', newText: c.newText, isNew: c.oldText === null || c.oldText === undefined });
    else if (c.type === 'content' && c.content.type === 'text') previews.push(c.content.text);
  }
  return {
    sessionId: req.sessionId,
    toolCallId: tc.toolCallId,
    title: tc.title ?? tc.toolCallId,
    kind: tc.kind ?? undefined,
    diffs,
    preview: previews.length ? previews.join('\n') : undefined,
    locations: (tc.locations ?? []).map((l) => l.path),
    rawInput: tc.rawInput,
  };
}

const KINDS: Record<Choice, acp.PermissionOptionKind[]> = {
  accept: ['allow_once', 'allow_always'],
  acceptAlways: ['allow_always', 'allow_once'],
  reject: ['reject_once', 'reject_always'],
};

/** The answer for a choice: the first offered option of the wanted kind; a reject with no reject option cancels. */
export function answerFor(choice: Choice | undefined, options: acp.PermissionOption[]): acp.RequestPermissionResponse {
  for (const kind of KINDS[choice ?? 'reject']) {
    const o = options.find((x) => x.kind === kind);
    if (o) return { outcome: { outcome: 'selected', optionId: o.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

/** Whether devx offered to remember an approval for the session. */
export function offersAlways(options: acp.PermissionOption[]): boolean {
  return options.some((o) => o.kind === 'allow_always');
}
