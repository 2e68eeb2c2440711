// What one step's role is told: the request, the artifacts of the steps it reads, feedback meant for
// it, and what it must produce. No conversation passes between steps: only this text.
import path from 'node:path';
import type { StepDef, WorkflowDef } from './definition.js';
import type { StepRecord, WorkflowState } from './state.js';
import { verdictExample } from './verdict.js';
import { readRegularFileSync } from '../util/readRegularFileSync.js';
import { artifactTargetProblem } from './artifactPath.js';

const MAX_ARTIFACT_CHARS = 20_000;

export function fillPath(template: string, state: Pick<WorkflowState, 'id' | 'slug'>): string {
  return template.replace(/\{id\}/g, state.id).replace(/\{slug\}/g, state.slug);
}

/** The latest completed record of a step, if it ran. */
export function latestRecord(state: WorkflowState, step: string): StepRecord | undefined {
  for (let i = state.steps.length - 1; i >= 0; i--) if (state.steps[i].step === step) return state.steps[i];
  return undefined;
}

function readArtifact(root: string, rel: string): string {
  try {
    // What a role left at the artifact's name (a link to a key, say) is not shown to the next role.
    const refused = artifactTargetProblem(root, path.join(root, rel), 'read');
    if (refused) return `(not shown: ${refused})`;
    const text = readRegularFileSync(path.join(root, rel));
    if (text === undefined) return `(missing: ${rel})`;
    return text.length > MAX_ARTIFACT_CHARS ? `${text.slice(0, MAX_ARTIFACT_CHARS)}\n...(cut; read ${rel} for the rest)` : text;
  } catch {
    return `(missing: ${rel})`;
  }
}

export function buildStepPrompt(root: string, def: WorkflowDef, state: WorkflowState, name: string, extra: { testCommand?: string } = {}): string {
  const step = def.steps[name];
  const parts: string[] = [`# Workflow "${def.name}" (${state.id}), step ${name}`];
  if (step.description) parts.push(step.description);
  if (step.reads.includes('request') || !step.reads.length) parts.push(`## The request\n${state.request}`);
  for (const r of step.reads) {
    if (r === 'request') continue;
    const rec = latestRecord(state, r);
    if (!rec) continue;
    if (rec.artifact) parts.push(`## ${r}: ${rec.artifact} (written by the ${rec.role})\n${readArtifact(root, rec.artifact)}`);
    else if (rec.commit || rec.verdict)
      parts.push(`## ${r} (the ${rec.role})\n${rec.commit ? `Commit: ${rec.commit}\n` : ''}${rec.verdict ? `Result: ${JSON.stringify(rec.verdict)}` : ''}`);
  }
  const fb = state.feedback[name];
  if (fb) parts.push(`## Feedback you must address\n${fb}`);
  parts.push(outputInstructions(step, state, extra));
  return parts.join('\n\n');
}

function outputInstructions(step: StepDef, state: WorkflowState, extra: { testCommand?: string }): string {
  const lines = ['## What you must produce'];
  if (step.writes)
    lines.push(
      `Your final answer is your report in Markdown. devx saves it to ${fillPath(step.writes, state)} and commits it; do not write that file yourself.`,
    );
  if (step.check.includes('tests') && extra.testCommand) lines.push(`devx confirms your test claim by running \`${extra.testCommand}\` itself.`);
  if (step.check.includes('commit') && state.git.branch) lines.push(`Commit your work on the current branch (${state.git.branch}) before you answer.`);
  if (step.verdict) lines.push(`End your answer with exactly one JSON object on its own line, and nothing after it:\n${verdictExample(step.verdict)}`);
  return lines.join('\n');
}

/** The prompt of the one repair round: the same task, the previous answer, and what was wrong with it. */
export function repairPrompt(original: string, answer: string, problem: string, step: StepDef): string {
  return `${original}\n\n## Your previous answer could not be used\n${problem}.\n\nYour previous answer was:\n\n${answer.slice(0, 6000)}\n\nAnswer again in full${step.verdict ? `, ending with the JSON object: ${verdictExample(step.verdict)}` : ''}.`;
}
