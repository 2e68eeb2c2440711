// New agent files: `agent create` (from a template, a wizard when nothing is given) and `agent init`
// (a scaffold with Responsibilities, When to use, Tooling, Guardrails, Example prompts).
// Questions go through `ask`: the REPL passes its own input, so the wizard and the REPL never fight
// over stdin; a null answer (Ctrl-C, Ctrl-D) stops the wizard and writes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './shared.js';
import { packageRoot } from '../util/packageRoot.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';

export const TEMPLATES = ['code-reviewer', 'test-runner', 'docs-writer', 'release-bot'];

/** Asks one question; null when the person stopped (Ctrl-C, end of input). */
export type Ask = (question: string) => Promise<string | null>;

export interface NewAgentFlags {
  name?: string;
  description?: string;
  template?: string;
  scope?: string;
}

class Stopped extends Error {}

/** `q [default]: `, the default when the answer is empty; throws Stopped on null. */
function asker(ask: Ask | null): (q: string, def?: string) => Promise<string> {
  return async (q, def = '') => {
    if (!ask) return def;
    const a = await ask(`${q}${def ? ` [${def}]` : ''}: `);
    if (a === null) throw new Stopped();
    return a.trim() || def;
  };
}

function agentDir(root: string, devxHome: string, scope: string): string {
  if (scope !== 'project' && scope !== 'user') throw new UsageError('--scope is project or user');
  return scope === 'project' ? path.join(root, '.devx', 'agents') : path.join(devxHome, 'agents');
}

function checkName(name: string): void {
  if (!/^[a-z0-9][a-z0-9_-]*$/i.test(name)) throw new UsageError('names are letters, digits, - or _');
}

function writeAgent(dir: string, name: string, text: string): string {
  const file = path.join(dir, `${name}.md`);
  if (fs.existsSync(file)) throw new UsageError(`${file} already exists; edit it with devx agent edit ${name}`);
  mkdirOwnedSync(dir);
  writeNewOwnedSync(file, text);
  return file;
}

/** Returns the message to print ("created …" or that the wizard stopped). */
export async function createAgentFile(root: string, devxHome: string, flags: NewAgentFlags, ask: Ask | null): Promise<string> {
  const q = asker(ask);
  try {
    const template = flags.template ?? (await q(`Template (${TEMPLATES.join(', ')})`, 'code-reviewer'));
    if (!TEMPLATES.includes(template)) throw new UsageError(`unknown template "${template}"; choose one of ${TEMPLATES.join(', ')}`);
    const name = flags.name ?? (await q('Name', template));
    checkName(name);
    const dir = agentDir(root, devxHome, flags.scope ?? (await q('Scope (project or user)', 'project')));
    const text = fs.readFileSync(path.join(packageRoot(), 'prompts', 'agent-templates', `${template}.md`), 'utf8');
    const description = flags.description ?? (await q('Description', /description: (.*)/.exec(text)?.[1] ?? ''));
    const file = writeAgent(
      dir,
      name,
      text.replace(/^name: .*$/m, `name: ${name}`).replace(/^description: .*$/m, `description: ${description.replace(/\n/g, ' ')}`),
    );
    return `created ${file}`;
  } catch (err) {
    if (err instanceof Stopped) return 'agent create stopped; nothing was written';
    throw err;
  }
}

export function scaffoldText(name: string, description: string): string {
  return `---
name: ${name}
description: ${description.replace(/\n/g, ' ')}
tools: [read_file, list_directory, glob, search_code]
# model: gemini-2.5-pro        # optional: the model this agent runs on
# provider: gemini             # optional: gemini or claude
# memory: ${name}-memory.md    # optional: a file beside this one, added to the prompt
---
You are the ${name} agent.

## Responsibilities
- What this agent owns, one line each.

## When to use
- The tasks it fits (its description above is what devx agent suggest matches).

## Tooling
- The tools it uses and how (the tools: line above is its allowlist).

## Guardrails
- What it must never do (edit files outside its area, run commands that change things, ...).

## Example prompts
- "..."
`;
}

/** `agent init <name>`: the seed's scaffold, to fill in. */
export async function initAgentFile(root: string, devxHome: string, name: string | undefined, flags: NewAgentFlags, ask: Ask | null): Promise<string> {
  const q = asker(ask);
  try {
    const n = name ?? flags.name ?? (ask ? await q('Name') : undefined);
    if (!n) throw new UsageError('usage: devx agent init <name> [--description D] [--scope project|user]');
    checkName(n);
    const description = flags.description ?? (await q('Description (when to use it)', `Describe when to use ${n}`));
    const file = writeAgent(agentDir(root, devxHome, flags.scope ?? 'project'), n, scaffoldText(n, description));
    return `created ${file}: fill in its sections (Responsibilities, When to use, Tooling, Guardrails, Example prompts)`;
  } catch (err) {
    if (err instanceof Stopped) return 'agent init stopped; nothing was written';
    throw err;
  }
}
