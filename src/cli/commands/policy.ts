// `devx policy check --json (--read|--write|--list) PATH` and `devx policy check --json --command "CMD"`:
// the decision a real run would make, with the same effective settings, in headless-with-a-person
// semantics (ask stays ask). Exit 0 whatever the decision; 2 on bad usage.
// `--batch` reads one JSON query per stdin line ({"kind":"command","input":"ls"}) and answers each.
import { defineCommand, flagTable, pickFlags, subcommandTable } from '../command.js';
import { createInterface } from 'node:readline';
import { createPolicy } from '../../runtime/createPolicy.js';
import { builtinTools } from '../../tools/registry.js';
import { UsageError, approvalModeFrom, AGENT_FLAGS } from '../shared.js';
import type { PolicyEngine } from '../../policy/decide.js';
import type { Tool } from '../../tools/types.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

type Kind = 'read' | 'write' | 'list' | 'command';
const KINDS: Kind[] = ['read', 'write', 'list', 'command'];
/** Each query kind is asked of the tool that declares the Claude Code name for it. */
const ALIAS_FOR: Record<Kind, string> = { read: 'Read', write: 'Write', list: 'LS', command: 'Bash' };

function decide(policy: PolicyEngine, tools: Tool[], kind: Kind, value: string) {
  const tool = tools.find((t) => t.aliases?.includes(ALIAS_FOR[kind]))!;
  const args = kind === 'command' ? { cmd: value } : kind === 'write' ? { path: value, content: '' } : { path: value };
  const d = policy.decideToolCall(tool, args, { countRate: false });
  // The claim: what the sandbox holds the command to when no person approves it (absent where there is no sandbox).
  const sandboxed = policy.opts.sandboxed && kind === 'command' && d.decision !== 'deny';
  return { decision: d.decision, reason: d.reason, rule: d.rule, ...(sandboxed && d.claim ? { claim: d.claim } : {}) };
}

export const policyCommand = defineCommand({
  name: 'policy',
  summary: 'show the decision (allow/ask/deny) a real run would make, its reason and rule',
  usage: ['policy check [--json] (--read|--write|--list PATH | --command "CMD")', 'policy check --batch < queries.jsonl'],
  flags: {
    ...flagTable(`
      --json            print {"decision","reason","rule"} (and "claim", what the sandbox holds a command to)
      --read <PATH>     reading this path
      --write <PATH>    writing this path
      --list <PATH>     listing this directory
      --command <CMD>   running this shell command
      --batch           one JSON query per stdin line: {"kind":"command|read|write|list","input":"..."}
`),
    ...pickFlags(AGENT_FLAGS, 'approval-mode'),
  },
  subcommands: subcommandTable(
    'check | policy check [--json] (--read|--write|--list PATH or --command "CMD" or --batch) | one decision, or one per stdin line',
  ),
  async run({ values: raw, positionals }) {
    const values = raw as { json?: boolean; read?: string; write?: string; list?: string; command?: string; batch?: boolean; 'approval-mode'?: string };
    if (positionals[0] !== 'check' || positionals.length > 1)
      throw new UsageError('usage: devx policy check [--json] (--read|--write|--list PATH | --command "CMD" | --batch)');
    const given = KINDS.filter((k) => values[k] !== undefined);
    if (given.length + (values.batch ? 1 : 0) !== 1)
      throw new UsageError('devx policy check takes exactly one of --read, --write, --list, --command or --batch');
    // A person is there: ask stays ask instead of becoming a headless denial.
    const { policy } = await createPolicy({ cwd: process.cwd(), env: process.env, approvalMode: approvalModeFrom(values), headless: false, eagerParser: true });
    const tools = builtinTools();
    if (values.batch) {
      for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
        if (!line.trim()) continue;
        let q: { kind?: string; input?: unknown };
        try {
          q = JSON.parse(line);
        } catch {
          throw new UsageError(`--batch: not a JSON line: ${line.slice(0, 80)}`);
        }
        if (!KINDS.includes(q.kind as Kind) || typeof q.input !== 'string')
          throw new UsageError('--batch lines look like {"kind":"command|read|write|list","input":"..."}');
        process.stdout.write(`${printableJson(decide(policy, tools, q.kind as Kind, q.input))}\n`);
      }
      return 0;
    }
    const kind = given[0];
    const out = decide(policy, tools, kind, values[kind]!);
    process.stdout.write(values.json ? `${printableJson(out)}\n` : escapeControls(`${out.decision}: ${out.reason} [${out.rule}]\n`));
    return 0;
  },
});
