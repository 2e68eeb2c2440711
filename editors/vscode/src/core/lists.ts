// The JSON devx prints for the pickers (`devx agent list --json`, `devx workflow list --json`) and the
// audit log (.devx/audit.jsonl) as lines for an output channel. No `vscode` import.

export interface AgentItem {
  name: string;
  description: string;
  scope: string;
}

export interface WorkflowItem {
  name: string;
  description: string;
  scope: string;
  steps: string[];
  modes: string[];
}

function parse(json: string, what: string): unknown {
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new Error(`${what} did not print JSON: ${(err as Error).message}: ${json.slice(0, 200)}`);
  }
}

/** `devx agent list --json`: { agents: [...] }. The project's and the user's agents first, devx's built-in roles last. */
export function parseAgentList(json: string): AgentItem[] {
  const data = parse(json, 'devx agent list --json') as { agents?: unknown };
  if (!data || !Array.isArray(data.agents)) throw new Error('devx agent list --json: no "agents" array');
  const rank = (s: string) => (s === 'project' ? 0 : s === 'user' ? 1 : 2);
  return data.agents
    .filter((a): a is Record<string, unknown> => !!a && typeof (a as { name?: unknown }).name === 'string')
    .map((a) => ({ name: String(a.name), description: String(a.description ?? ''), scope: String(a.scope ?? '') }))
    .sort((a, b) => rank(a.scope) - rank(b.scope) || a.name.localeCompare(b.name));
}

/** `devx workflow list --json`: an array of definitions. */
export function parseWorkflowList(json: string): WorkflowItem[] {
  const data = parse(json, 'devx workflow list --json');
  if (!Array.isArray(data)) throw new Error('devx workflow list --json: not an array');
  return data
    .filter((w): w is Record<string, unknown> => !!w && typeof (w as { name?: unknown }).name === 'string')
    .map((w) => ({
      name: String(w.name),
      description: String(w.description ?? ''),
      scope: String(w.scope ?? ''),
      steps: Array.isArray(w.steps) ? w.steps.map(String) : [],
      modes: w.modes && typeof w.modes === 'object' ? Object.keys(w.modes) : [],
    }));
}

/** One audit entry as a line (as `devx audit tail` prints it, for when devx cannot be run). */
export function renderAuditLine(line: string): string {
  try {
    const e = JSON.parse(line) as Record<string, any>;
    if (e.event === 'hook')
      return `${e.time} hook:${e.hook} ${e.outcome} exit=${e.exitCode ?? '-'}${e.tool ? ` tool=${e.tool}` : ''} ${String(e.command ?? '')}`;
    const args = Object.entries(e.args ?? {})
      .map(
        ([k, v]) =>
          `${k}=${String(typeof v === 'string' ? v : JSON.stringify(v))
            .replace(/\s+/g, ' ')
            .slice(0, 60)}`,
      )
      .join(' ');
    const plan = e.plan ? ` [${e.plan.kind} ${e.plan.path} +${e.plan.added} -${e.plan.removed}]` : '';
    const head = `${e.time} ${String(e.tool).padEnd(14)} ${String(e.decision ?? '-').padEnd(5)} ${String(e.status ?? '-').padEnd(5)}`;
    return [head, e.rule, e.answer ? `answer=${e.answer}` : '', args].filter(Boolean).join(' ') + plan;
  } catch {
    return line;
  }
}

/** The last `n` entries of an audit.jsonl text, rendered. */
export function renderAuditLog(text: string, n = 50): string[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .slice(-n)
    .map(renderAuditLine);
}
