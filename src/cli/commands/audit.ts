// `devx audit tail [-n N] [--json] | grep PATTERN | verify` over .devx/audit.jsonl.
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { findProjectRoot } from '../../config/paths.js';
import { auditFile } from '../../audit/auditLog.js';
import type { PlanSummary } from '../../tools/planSummary.js';
import { verifyChain } from '../../audit/chainedAppend.js';
import { UsageError } from '../shared.js';
import { escapeControls, escapeJsonControls } from '../../util/terminalText.js';
import { READ_LIMITS, readTextOrNull } from '../../util/readRegularFileSync.js';

function readLines(file: string): string[] {
  return (readTextOrNull(file, READ_LIMITS.state, 'any') ?? '').split('\n').filter(Boolean);
}

/** One line of the log as read back: a hook's or a tool call's fields as auditLog.ts writes them (an older or damaged line may lack any). */
interface AuditLine {
  time?: string;
  event?: string;
  hook?: string;
  command?: string;
  outcome?: string;
  exitCode?: number | null;
  message?: string | null;
  tool?: string | null;
  args?: Record<string, unknown>;
  decision?: string | null;
  rule?: string | null;
  answer?: string | null;
  status?: string;
  plan?: PlanSummary;
}

function human(line: string): string {
  try {
    const e = JSON.parse(line) as AuditLine;
    if (e.event === 'hook')
      return `${e.time} hook:${String(e.hook).padEnd(9)} ${String(e.outcome).padEnd(7)} exit=${e.exitCode ?? '-'}${e.tool ? ` tool=${e.tool}` : ''} ${String(e.command).slice(0, 60)}${e.message ? ` (${String(e.message).slice(0, 80)})` : ''}`;
    const args = Object.entries(e.args ?? {})
      .map(([k, v]) => `${k}=${String(v).replace(/\s+/g, ' ').slice(0, 60)}`)
      .join(' ');
    // A file change: its planned diff's summary (the whole diff is not kept; its hash is).
    const plan = e.plan ? ` [${e.plan.kind} ${e.plan.path} +${e.plan.added} -${e.plan.removed} diff sha256:${String(e.plan.diffSha256).slice(0, 12)}]` : '';
    return `${e.time} ${String(e.tool).padEnd(14)} ${String(e.decision ?? '-').padEnd(5)} ${String(e.status).padEnd(5)} ${e.rule ?? ''}${e.answer ? ` answer=${e.answer}` : ''} ${args}${plan}`;
  } catch {
    return line;
  }
}

export const auditCommand = defineCommand({
  name: 'audit',
  summary: 'read or verify the hash-chained audit log (.devx/audit.jsonl)',
  usage: ['audit tail [-n N] [--json]', 'audit grep PATTERN [--json]', 'audit verify'],
  flags: flagTable(`
  -n, --n <N>   how many entries tail shows (default 20)
      --json    print the raw JSON lines
`),
  subcommands: subcommandTable(`
tail | audit tail [-n N] [--json] | the last entries
grep | audit grep PATTERN [--json] | entries matching a regular expression (exit 1 when none)
verify | audit verify | check the hash chain; exit 1 with the first broken line
`),
  async run({ values, positionals }) {
    const [sub, ...rest] = positionals;
    const file = auditFile(findProjectRoot(process.cwd()));
    // Entries hold the model's arguments and hooks' messages: JSON lines with every control escaped, else text that shows them.
    const print = (lines: string[]) =>
      process.stdout.write(lines.map((l) => (values.json ? escapeJsonControls(l) : escapeControls(human(l)))).join('\n') + (lines.length ? '\n' : ''));
    if (sub === 'tail') {
      const n = values.n ? Number(values.n) : 20;
      if (!Number.isInteger(n) || n < 1) throw new UsageError('-n takes a positive whole number');
      print(readLines(file).slice(-n));
      return 0;
    }
    if (sub === 'grep') {
      if (rest.length !== 1) throw new UsageError('usage: devx audit grep PATTERN');
      let re: RegExp;
      try {
        re = new RegExp(rest[0], 'i');
      } catch (err) {
        throw new UsageError(`invalid pattern: ${(err as Error).message}`);
      }
      const hits = readLines(file).filter((l) => re.test(l));
      print(hits);
      return hits.length ? 0 : 1;
    }
    if (sub === 'verify') {
      const r = verifyChain(file);
      if (r.ok) {
        process.stdout.write(`audit log OK: ${r.entries} entries, hash chain intact (${file})\n`);
        return 0;
      }
      process.stdout.write(`audit log BROKEN at line ${r.badLine}: ${r.problem} (${r.entries} entries verified before it; ${file})\n`);
      return 1;
    }
    throw new UsageError('usage: devx audit tail [-n N] [--json] | devx audit grep PATTERN | devx audit verify');
  },
});
