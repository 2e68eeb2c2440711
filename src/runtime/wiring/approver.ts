// Asking the person, and their standing answers: what an approval mode approves is authorize()'s to say
// (policy/authorize.ts); here only the person is asked, and an "always" kept for the rest of the session.
import type { ApprovalRequest, PersonAnswer } from '../../tools/runToolCall.js';
import type { Tool } from '../../tools/types.js';

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
  // "Always" covers the exact command line for tools that run one, and the whole tool otherwise.
  const keyOf = (req: ApprovalRequest) => {
    const cmd = byName.get(req.tool)?.commandFor;
    return cmd ? `${req.tool}:${cmd(req.args)}` : req.tool;
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
