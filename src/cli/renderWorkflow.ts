// How workflows read in the terminal: live progress (step, role, model, elapsed), the status graph
// and the log.
import path from 'node:path';
import type { AgentEvent } from '../core/loop.js';
import type { WorkflowDef } from '../workflow/definition.js';
import type { WorkflowEvent } from '../workflow/runWorkflow.js';
import type { WorkflowState } from '../workflow/state.js';
import { Spinner } from './spinner.js';
import { escapeControls } from '../util/terminalText.js';

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const tok = (t: { input: number; output: number }) => {
  const n = t.input + t.output;
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n} tokens`;
};

export function createProgress(out: NodeJS.WriteStream, env: NodeJS.ProcessEnv) {
  const spinner = new Spinner(out, env);
  let current = '';
  // Lines quote the request, tool calls and devx's checks of the model's work: shown, never obeyed.
  const line = (s: string) => {
    spinner.stop();
    out.write(`${escapeControls(s)}\n`);
    if (current) spinner.start(current);
  };
  return {
    started(s: WorkflowState, def: WorkflowDef) {
      line(`workflow ${s.id} (${def.name}${s.mode ? `, ${s.mode}` : ''})${s.git.branch ? ` on branch ${s.git.branch}` : ''}`);
    },
    onEvent(e: WorkflowEvent) {
      switch (e.type) {
        case 'step_start':
          current = `${e.step} · ${e.role}${e.model ? ` · ${e.model}` : ''}${e.attempt > 1 ? ` · attempt ${e.attempt}` : ''}`;
          line(`▶ ${current}`);
          break;
        case 'step_end': {
          const r = e.record;
          current = '';
          line(
            `${r.outcome === 'CHECK_FAILED' ? '✗' : '✓'} ${r.step} ${secs(r.durationMs)}, ${tok(r.tokens)}, ${r.modelCalls} model call${r.modelCalls === 1 ? '' : 's'}: ${r.outcome}${r.artifact ? ` (${r.artifact})` : ''} → ${r.next}`,
          );
          break;
        }
        case 'check_failed':
          line(`  devx's check failed: ${e.message.split('\n')[0]}`);
          break;
        case 'committed':
          line(`  committed ${e.commit.slice(0, 8)}`);
          break;
        case 'merged':
          line(`merged ${e.branch} into ${e.into}`);
          break;
        default:
          break;
      }
    },
    onAgentEvent(_step: string, e: AgentEvent) {
      if (e.type === 'tool_end') line(`    ${e.outcome.status === 'ok' ? '·' : '!'} ${e.outcome.summary}`);
    },
    done(s: WorkflowState) {
      current = '';
      spinner.stop();
      if (s.status === 'done')
        out.write(
          escapeControls(
            `Workflow ${s.id} is done${s.git.branch && s.git.merge !== 'none' ? `: ${s.git.branch} merged into ${s.git.base}` : s.git.branch ? `; the branch ${s.git.branch} is ready for review` : ''}.\n`,
          ),
        );
      else out.write(escapeControls(`Workflow ${s.id} is ${s.status} at ${s.current}: ${s.reason ?? ''}\n`));
    },
    stop() {
      spinner.stop();
    },
  };
}

/** `interrupted`: the state says running but no process runs it (controls.ts isInterrupted). */
export function renderStatus(s: WorkflowState, def: WorkflowDef | undefined, root: string, full: boolean, interrupted = false): string {
  const total = s.steps.reduce((a, r) => ({ input: a.input + r.tokens.input, output: a.output + r.tokens.output, ms: a.ms + r.durationMs }), {
    input: 0,
    output: 0,
    ms: 0,
  });
  const status = interrupted ? `interrupted at ${s.current} (run devx workflow resume ${s.id})` : `${s.status}${s.status !== 'done' ? ` at ${s.current}` : ''}`;
  const head = `${s.id}  ${s.workflow}${s.mode ? ` (${s.mode})` : ''}  ${status}  ${s.steps.length} steps, ${secs(total.ms)}, ${tok(total)}  ${s.request.split('\n')[0].slice(0, 60)}`;
  if (!full) return head;
  const lines = [head];
  if (s.git.branch) lines.push(`branch: ${s.git.branch} (from ${s.git.base})`);
  if (s.reason) lines.push(`why: ${s.reason}`);
  const names = def ? Object.keys(def.steps) : [...new Set(s.steps.map((r) => r.step))];
  for (const n of names) {
    const runs = s.steps.filter((r) => r.step === n);
    const mark = s.status !== 'done' && s.current === n ? '▶' : runs.length ? '✓' : '·';
    const ms = runs.reduce((a, r) => a + r.durationMs, 0);
    const t = runs.reduce((a, r) => ({ input: a.input + r.tokens.input, output: a.output + r.tokens.output }), { input: 0, output: 0 });
    const last = runs.at(-1);
    lines.push(
      `  ${mark} ${n.padEnd(16)} ${(def?.steps[n]?.role ?? last?.role ?? '').padEnd(16)} ${runs.length ? `${runs.length}× ${secs(ms)} ${tok(t)} last: ${last!.outcome}` : ''}`,
    );
  }
  const loops = Object.entries(s.loops);
  if (loops.length) lines.push(`loops: ${loops.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  lines.push(`state: ${path.relative(root, path.join(root, '.devx', 'workflows', s.id, 'state.json'))}`);
  return lines.join('\n');
}

export function renderLog(s: WorkflowState): string {
  const out = [`${s.id} ${s.workflow} ${s.status}: ${s.request.split('\n')[0]}`];
  s.steps.forEach((r, i) => {
    out.push(
      `${i + 1}. ${r.step} (${r.role}${r.model ? `, ${r.model}` : ''}) ${r.startedAt} ${secs(r.durationMs)} ${tok(r.tokens)} → ${r.outcome} → ${r.next}`,
    );
    if (r.artifact) out.push(`   artifact: ${r.artifact}`);
    if (r.verdict) out.push(`   verdict: ${JSON.stringify(r.verdict)}`);
    if (r.commit) out.push(`   commit: ${r.commit}`);
    if (r.note) out.push(`   note: ${r.note}`);
    if (r.transcript) out.push(`   transcript: ${r.transcript}`);
  });
  if (s.reason) out.push(`why ${s.status}: ${s.reason}`);
  return `${out.join('\n')}\n`;
}
