// What a call will change, for undo (runToolCall keeps it first, through ctx.changes): the file tools'
// write locations; for a command, the paths the policy judged it to write when its model of the command
// knows the whole effect. A build, a git change, a script or an MCP tool may write anything: not undoable.
import type { PolicyDecision } from '../policy/types.js';
import { allowedBySettings, unapprovable } from '../policy/types.js';
import type { Tool, ToolContext } from './types.js';

export type PlannedWrites = { paths: string[] } | { unknown: string };

export function plannedWrites(tool: Tool, args: Record<string, unknown>, decision: PolicyDecision, ctx: ToolContext): PlannedWrites | null {
  if (tool.commandFor) {
    const claim = decision.claim;
    if (!claim) return { unknown: 'devx has no model of what it writes' };
    // The call returns while the command still runs: what it has written by then is not what it will have written.
    if (args.background === true) return { unknown: 'it runs in the background, past the end of the call' };
    if (claim.profile === 'build')
      return {
        unknown: claim.git ? 'a git change can rewrite any file of the work tree' : "it runs the project's own code, which can write anywhere in the project",
      };
    // A settings rule lifted an ask: the rule that knew the effect is not known any more.
    if (allowedBySettings(decision)) return { unknown: 'your settings rule allowed it, so devx does not know what it writes' };
    // An ask no mode may approve is one whose effect the policy does not know in full (a script, an unknown program).
    if (decision.decision === 'ask' && unapprovable(decision) && !decision.modelled) return { unknown: 'devx does not know everything it writes' };
    return claim.writes.length ? { paths: claim.writes } : null;
  }
  if (tool.kind === 'write' && tool.locations) {
    const paths: string[] = [];
    for (const loc of tool.locations(args)) {
      if (loc.intent !== 'write') continue;
      try {
        paths.push(ctx.resolve(loc.path));
      } catch {
        // a path the tool will refuse too
      }
    }
    return paths.length ? { paths } : null;
  }
  if (tool.kind === 'write' || (tool.kind === 'execute' && tool.mcp)) return { unknown: 'devx does not know what it may change' };
  return null;
}
