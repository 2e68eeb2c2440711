// The REPL's side of plan mode: a task typed in plan mode becomes a planning turn; the plan the model answers
// with is saved (.devx/plans/), shown, and put to the person: carry it out in a mode they pick (its steps
// become the todo list), ask for changes (the model plans again), or reject it (plan mode stays).
import type { Started } from '../runtime/startSession.js';
import type { TurnResult } from '../core/loop.js';
import type { ApprovalMode } from '../policy/types.js';
import type readline from 'node:readline';
import type { AgentRun } from '../runtime/agentRun.js';
import type { ReplInput } from './replInput.js';
import { nextMode, planningMessage, planSteps, revisionMessage, savePlan, workMessage } from '../runtime/planMode.js';
import { escapeControls } from '../util/terminalText.js';

export interface PlanIo {
  out: NodeJS.WritableStream;
  /** Asks a question; null when the person cancelled (Ctrl-C) or input ended. */
  ask(question: string): Promise<string | null>;
  /** Runs a turn that Ctrl-C cancels. */
  turn(message: string): Promise<TurnResult>;
  /** Told the mode changed (the prompt shows it). */
  modeChanged(): void;
}

// `y` is yes everywhere else in devx, so here it is the default mode too: yolo is only ever typed out.
const APPROVALS: Record<string, ApprovalMode> = {
  y: 'default',
  yes: 'default',
  d: 'default',
  default: 'default',
  a: 'auto-edit',
  'auto-edit': 'auto-edit',
  yolo: 'yolo',
};

/** The mode an answer to "Carry it out?" chooses, or undefined (change it, reject, anything else). */
export function modeForAnswer(answer: string): ApprovalMode | undefined {
  return Object.hasOwn(APPROVALS, answer) ? APPROVALS[answer] : undefined;
}

/** The prompt for a new message in `mode`, with how many background commands run (`devx [plan · 1 bg]> `). */
export function promptFor(mode: ApprovalMode, background = 0): string {
  const tags = [...(mode === 'default' ? [] : [mode]), ...(background > 0 ? [`${background} bg`] : [])];
  return tags.length ? `devx [${tags.join(' · ')}]> ` : 'devx> ';
}

/**
 * Shift+Tab steps through the approval modes (default, auto-edit, plan); the prompt names the mode (and how many
 * background commands run), and at the prompt a line says which one it is now. Returns what shows the mode again
 * (after /plan changed it, or a background command started or ended).
 */
export function cycleModesOnShiftTab(o: {
  input: ReplInput;
  run: AgentRun;
  out: NodeJS.WritableStream;
  rl: readline.Interface;
  interactive: boolean;
  busy: () => boolean;
}): () => void {
  const showMode = () => o.input.setPromptText(promptFor(o.run.mode, o.run.agent.background.running));
  showMode();
  o.input.onShiftTab(() => {
    o.run.setMode(nextMode(o.run.mode));
    showMode();
    if (o.busy() || !o.interactive) return;
    o.out.write(`\n(mode: ${o.run.mode})\n`);
    o.rl.prompt(true);
  });
  return showMode;
}

/** A task in plan mode, from the planning turn to the person's answer (and the work, when approved). */
export async function planTask(started: Started, task: string, io: PlanIo): Promise<TurnResult> {
  const run = started.run;
  let r = await io.turn(planningMessage(task));
  for (;;) {
    if (r.status !== 'answered' || !r.answer?.trim()) return r;
    const plan = r.answer.trim();
    const file = savePlan(run.agent.root, task, plan);
    io.out.write(`\nplan saved as ${file}\n`);
    const answer =
      (await io.ask('Carry it out? [y]es, asking before changes / [a]uto-edit / yolo (typed out), [c]hange it, [r]eject: '))?.trim().toLowerCase() ?? 'r';
    const mode = modeForAnswer(answer);
    if (mode) {
      run.setMode(mode);
      io.modeChanged();
      started.session.setCheckpoint({ objective: task, todos: planSteps(plan) });
      io.out.write(`mode: ${mode}; the plan's ${planSteps(plan).length} steps are the todo list\n`);
      return io.turn(workMessage(file, plan));
    }
    if (answer === 'c' || answer === 'change') {
      const changes = await io.ask('What should change? ');
      if (!changes?.trim()) {
        io.out.write('no change given; the plan stands, still in plan mode\n');
        return r;
      }
      r = await io.turn(revisionMessage(file, changes.trim()));
      continue;
    }
    io.out.write(`plan rejected (kept as ${escapeControls(file)}); still in plan mode: /plan off or Shift+Tab leaves it\n`);
    return r;
  }
}
