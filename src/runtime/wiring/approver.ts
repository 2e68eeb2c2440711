// Asking the person, and their standing answers: what an approval mode approves is authorize()'s to say
// (policy/authorize.ts); here only the person is asked, and an "always" kept for the rest of the session.
import type { ApprovalRequest, PersonAnswer } from '../../tools/runToolCall.js';
import type { Tool } from '../../tools/types.js';
import { unapprovable } from '../../policy/types.js';

export interface Approver {
  approve(req: ApprovalRequest): Promise<PersonAnswer>;
  standing(req: ApprovalRequest): boolean;
}

/** `notify` is told when the person is about to be asked (Notification hooks), without waiting for it. */
export function makeApprover(
  byName: Map<string, Tool>,
  prompt?: (req: ApprovalRequest) => Promise<PersonAnswer>,
  notify?: (req: ApprovalRequest) => void,
): Approver {
  const always = new Set<string>();
  // "Always" covers the same tool asking for the same reason (its rule): the exact command line for tools that
  // run one, any call of another tool; and an ask only a person may lift (a write to .vscode/tasks.json), the
  // exact call alone. A yes to one plain write is never a yes to writing other tools' executable configuration.
  const keyOf = (req: ApprovalRequest) => {
    const cmd = byName.get(req.tool)?.commandFor;
    const exact = cmd ? cmd(req.args) : unapprovable(req.decision) ? JSON.stringify(req.args) : '';
    // A sub-agent's calls are kept apart: the session's "always" is not a yes to an agent a repository defined, nor the reverse.
    return JSON.stringify([req.by ?? '', req.tool, req.decision.rule, exact]);
  };
  return {
    approve: async (req) => {
      if (!prompt) return 'headless';
      notify?.(req);
      const answer = await prompt(req);
      if (answer === 'always') always.add(keyOf(req));
      return answer;
    },
    standing: (req) => always.has(keyOf(req)),
  };
}
