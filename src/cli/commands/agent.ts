// `devx agent list|show|use|run|start|status|cancel|retry|create|edit|rm|suggest` (also /agent in the REPL).
import fs from 'node:fs';
import { editorOf, runEditorSync } from '../../util/runEditor.js';
import { createRequire } from 'node:module';
import { UsageError, approvalModeFrom, EXIT, AGENT_FLAGS } from '../shared.js';
import { defineCommand, flagTable, ioOf, pickFlags, processIo, subcommandTable, type CliIo, type ParsedArgs } from '../command.js';
import { findAgent, formatIssue, loadAgents, PersonaError, type AgentDef } from '../../personas/loadAgents.js';
import { queueSubcommand, type QueueFlags } from './agentQueue.js';
import { suggestAgent } from '../../personas/suggestAgent.js';
import { runHeadless } from '../../runtime/runHeadless.js';
import { SharedBackends } from '../../runtime/sharedBackends.js';
import { createRenderer } from '../renderEvents.js';
import { devxHome, findProjectRoot } from '../../config/paths.js';
import { pickAgent, pickerItems } from '../agentPicker.js';
import { TEMPLATES, createAgentFile, initAgentFile, type Ask } from '../agentScaffold.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

const SUBCOMMANDS = subcommandTable(`
list | agent list [--json] | agents from every scope (project overrides user, which overrides builtin), with broken files reported
pick | agent pick | choose an agent in a picker (type to filter, arrow keys, Enter; fzf when installed) and print its name
show | agent show <name> [--scope project|user] [--json] | the resolved definition (with --scope, that scope's file)
use | agent use <name> | how to switch persona (in the REPL: /agent use <name>)
run | agent run <name> "<prompt>" [then <name> "<prompt>"]... [--dry-run] [--yes], or agent run [--all] [--parallel N] | a one-shot run (answers chained), or the oldest pending task (or the whole queue)
start | agent start <name> "<prompt>" [--write <path,...>] | queue a task (it may write the queue's workspace, its plan file and the paths named)
status | agent status [--json] | the task table: status, attempts, runner deaths, why a task failed, is blocked or incomplete
cancel | agent cancel <id> | cancel a pending or running task
retry | agent retry <id> | queue a failed, blocked, incomplete or cancelled task again
log | agent log <id> | a task's plan, transcript and changes (from the queue's database on the Postgres queue)
create | agent create [--name N] [--description D] [--template T] [--scope project|user] | a new agent file from a template (asks what is not given)
init | agent init <name> [--description D] [--scope project|user] | a new agent file with the sections to fill in: Responsibilities, When to use, Tooling, Guardrails, Example prompts
edit | agent edit <name> [--scope project|user] | open the agent's file in $EDITOR
rm | agent rm <name> [--scope project|user] | remove the agent's file
suggest | agent suggest "<prompt>" | which agent fits a task
`);
export const AGENT_USAGE = `usage:\n${SUBCOMMANDS.map((c) => `  devx ${c.usage}`).join('\n')}`;

function where(root: string, io: CliIo) {
  return { root, home: io.env.HOME ?? '', devx: devxHome(io.env), io };
}

function describeAgent(a: AgentDef): string {
  return [
    `name: ${a.name} (${a.scope}, ${a.format}: ${a.file})`,
    `description: ${a.description}`,
    `tools: ${a.tools ? a.tools.join(', ') || '(none)' : '(inherits every permitted tool)'}`,
    `model: ${a.model ?? '(session default)'}${a.provider ? `  provider: ${a.provider}` : ''}`,
    '',
    a.prompt,
  ].join('\n');
}

/** Splits `name "prompt" then name2 "prompt2"` into steps. */
export function parseChain(words: string[]): { agent: string; prompt: string }[] {
  const steps: { agent: string; prompt: string }[] = [];
  for (let i = 0; i < words.length;) {
    const agent = words[i];
    const prompt = words[i + 1];
    if (!agent || prompt === undefined || prompt === 'then') throw new UsageError('each step is <agent> "<prompt>", joined by "then"');
    steps.push({ agent, prompt });
    i += 2;
    if (i < words.length) {
      if (words[i] !== 'then') throw new UsageError(`expected "then" between steps, got "${words[i]}"`);
      i++;
    }
  }
  return steps;
}

type RunFlags = { model?: string; provider?: string; 'dry-run'?: boolean; json?: boolean; yes?: boolean; 'approval-mode'?: string };

async function oneShot(w: Where, steps: { agent: string; prompt: string }[], flags: RunFlags): Promise<number> {
  // A chain's steps share warm model processes; a single step starts faster spawning (and may have a head start).
  const sharedBackends = steps.length > 1 ? new SharedBackends() : undefined;
  try {
    return await runChain(w, steps, flags, sharedBackends);
  } finally {
    await sharedBackends?.dispose();
  }
}

async function runChain(w: Where, steps: { agent: string; prompt: string }[], flags: RunFlags, sharedBackends?: SharedBackends): Promise<number> {
  const { io } = w;
  const loaded = loadAgents(w.root, w.home, w.devx);
  // Every agent named is checked before anything runs.
  const defs = steps.map((step) => findAgent(loaded, step.agent));
  let previous: { agent: string; answer: string } | null = null;
  const warned = new Set<string>();
  const results: { agent: string; status: string; answer?: string; error?: string; calls: Record<string, unknown>[] }[] = [];
  for (const [i, step] of steps.entries()) {
    const def = defs[i];
    const input = previous ? `${step.prompt}\n\nInput from the previous step (${previous.agent}):\n${previous.answer}` : step.prompt;
    if (steps.length > 1) io.stderr.write(`── ${def.name}\n`);
    const render = createRenderer({ out: io.stderr, answerOut: flags.json ? null : io.stdout, dryRun: flags['dry-run'], env: io.env });
    const r = await runHeadless({
      prompt: input,
      cwd: io.cwd,
      env: io.env,
      backend: io.backend,
      persona: def,
      model: flags.model,
      provider: flags.provider,
      approval: flags.yes ? 'yolo' : approvalModeFrom(flags),
      dryRun: flags['dry-run'],
      sharedBackends,
      onEvent: render.onEvent,
      onWarning: (w) => {
        if (!warned.has(w)) io.stderr.write(`devx: warning: ${escapeControls(w)}\n`);
        warned.add(w);
      },
    });
    // Each call with the policy's decision; under --dry-run none of them ran.
    const calls = r.toolCalls.map((c) => ({
      tool: c.tool,
      args: c.args,
      summary: c.summary,
      decision: c.decision,
      rule: c.rule,
      reason: c.reason,
      ran: !flags['dry-run'],
      ...(flags['dry-run'] ? {} : { status: c.status }),
      ...(c.plan ? { plan: c.plan } : {}),
    }));
    results.push({ agent: def.name, status: r.status, answer: r.answer, error: r.error?.message, calls });
    if (r.error?.kind === 'binary_missing') {
      io.stderr.write(`${escapeControls(r.error.message)}\n`);
      return EXIT.missingBinary;
    }
    if (r.status !== 'answered') break;
    previous = { agent: def.name, answer: r.answer ?? '' };
  }
  if (flags.json) io.stdout.write(`${printableJson({ steps: results }, 2)}\n`);
  return results.every((r) => r.status === 'answered') && results.length === steps.length ? EXIT.ok : EXIT.failed;
}

export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'agents, personas and the task queue: list, show, run, start, status, create, ...',
  usage: SUBCOMMANDS.map((c) => c.usage),
  flags: {
    ...pickFlags(AGENT_FLAGS, 'model', 'provider', 'yes', 'approval-mode'),
    ...flagTable(`
      --json                  machine-readable output (list, show, status, run)
      --all                   run: drain the whole queue
      --parallel <N>          run: how many tasks at once (1-32)
      --dry-run               run: show each call and what the policy would decide, run nothing
      --scope <project|user>  create, init, show, edit, rm: which scope
      --name <N>              create: the agent name
      --description <D>       create, init: its description
      --template <T>          create: one of ${TEMPLATES.join(', ')}
      --lease <SECONDS>       run: task lease before another runner may take it over (default 120)
      --require-changes       run: a task that ends complete having changed nothing counts as a failure (exit 1)
      --write <PATHS>         start: more paths the task may write (comma-separated; a folder covers its files)
`),
  },
  subcommands: SUBCOMMANDS,
  run: (args, cli) => runAgentCommand(args, { io: ioOf(cli) }),
});

/** `devx agent …` where `given.io` says (the process's own by default); the REPL's /agent passes `ask`, its own input, for the create and init wizards. */
export async function runAgentCommand({ values, positionals }: ParsedArgs, given: { ask?: Ask; io?: CliIo }): Promise<number> {
  try {
    return await agentMain(values as Parameters<typeof agentMain>[0], positionals, given);
  } catch (err) {
    if (err instanceof PersonaError) throw new UsageError(err.message);
    throw err;
  }
}

type AgentFlags = RunFlags & QueueFlags & { scope?: string; name?: string; description?: string; template?: string };
type Where = ReturnType<typeof where>;

async function agentMain(values: AgentFlags, positionals: string[], given: { ask?: Ask; io?: CliIo }): Promise<number> {
  const [sub, ...rest] = positionals;
  const io = given.io ?? processIo();
  const root = findProjectRoot(io.cwd);
  const w = where(root, io);
  if (sub !== 'run') {
    const queued = await queueSubcommand(sub, rest, values, root, io);
    if (queued !== null) return queued;
  }
  switch (sub) {
    case 'list':
      return listAgents(w, values.json);
    case 'pick':
      return pickAgentName(w);
    case 'show':
      return showAgent(w, rest[0], values);
    case 'use':
      io.stdout.write(
        `Switch persona inside a session: /agent use ${rest[0] ?? '<name>'} in the REPL, or start one with devx --agent ${rest[0] ?? '<name>'}.\n`,
      );
      return EXIT.ok;
    case 'suggest': {
      const s = suggestAgent(rest.join(' '), [...loadAgents(root, w.home, w.devx).agents.values()]);
      io.stdout.write(s ? escapeControls(`${s.agent.name} (score ${s.score.toFixed(2)}): ${s.agent.description}\n`) : 'no agent fits clearly\n');
      return EXIT.ok;
    }
    case 'create':
    case 'init':
      return writeAgentFile(w, sub, rest[0], values, given);
    case 'edit':
    case 'rm':
      return editOrRemoveAgent(w, sub, rest[0], values.scope);
    case 'run':
      if (rest.length) return await oneShot(w, parseChain(rest), values);
      return (await queueSubcommand('run', rest, values, root, io))!;
    default:
      throw new UsageError(AGENT_USAGE);
  }
}

function listAgents(w: Where, json?: boolean): number {
  const l = loadAgents(w.root, w.home, w.devx);
  for (const e of l.errors) w.io.stderr.write(`error: ${escapeControls(formatIssue(e))}\n`);
  for (const e of l.warnings) w.io.stderr.write(`warning: ${escapeControls(formatIssue(e))}\n`);
  const rows = [...l.agents.values()].map((a) => ({
    name: a.name,
    scope: a.scope,
    format: a.format,
    description: a.description,
    overrides: l.overridden.filter((o) => o.name === a.name).map((o) => `${o.scope}:${o.format}`),
  }));
  if (json) w.io.stdout.write(`${printableJson({ agents: rows, errors: l.errors, warnings: l.warnings }, 2)}\n`);
  else if (!rows.length) w.io.stdout.write(`no agents yet: create one with devx agent create (templates: ${TEMPLATES.join(', ')})\n`);
  else
    for (const r of rows)
      w.io.stdout.write(
        escapeControls(
          `${r.name.padEnd(20)} ${r.scope.padEnd(7)} ${r.format.padEnd(16)} ${r.overrides.length ? `(overrides ${r.overrides.join(', ')}) ` : ''}${r.description}\n`,
        ),
      );
  return l.errors.length ? EXIT.failed : EXIT.ok;
}

async function pickAgentName(w: Where): Promise<number> {
  if (!process.stdin.isTTY || typeof process.stdin.setRawMode !== 'function')
    throw new UsageError('devx agent pick needs a terminal; devx agent list prints the agents');
  const l = loadAgents(w.root, w.home, w.devx);
  for (const e of l.errors) w.io.stderr.write(`error: ${escapeControls(formatIssue(e))}\n`);
  // The picker draws on stderr, so `devx --agent "$(devx agent pick)"` works.
  const name = await pickAgent(pickerItems(l), { input: process.stdin, out: w.io.stderr, env: w.io.env });
  process.stdin.pause();
  if (!name) {
    w.io.stderr.write('no agent chosen\n');
    return EXIT.failed;
  }
  w.io.stdout.write(`${name}\n`);
  if (w.io.stdout.isTTY) w.io.stderr.write(`start a session with it as the persona: devx --agent ${name}\n`);
  return EXIT.ok;
}

function showAgent(w: Where, name: string | undefined, values: AgentFlags): number {
  if (!name) throw new UsageError('usage: devx agent show <name> [--scope project|user]');
  const l = loadAgents(w.root, w.home, w.devx);
  const scoped = values.scope ? [...l.agents.values(), ...l.overridden].find((x) => x.name === name && x.scope === values.scope) : undefined;
  if (values.scope && !scoped) throw new UsageError(`no agent named "${name}" in the ${values.scope} scope`);
  const a = scoped ?? findAgent(l, name);
  w.io.stdout.write(`${values.json ? printableJson(a, 2) : escapeControls(describeAgent(a))}\n`);
  return EXIT.ok;
}

async function writeAgentFile(w: Where, sub: 'create' | 'init', name: string | undefined, values: AgentFlags, given: { ask?: Ask }): Promise<number> {
  // Outside the REPL the wizard asks on the terminal (readline-sync); the REPL passes its own input.
  const ask: Ask | null =
    given.ask ?? (process.stdin.isTTY ? async (q) => (createRequire(import.meta.url)('readline-sync') as typeof import('readline-sync')).question(q) : null);
  const message = sub === 'create' ? await createAgentFile(w.root, w.devx, values, ask) : await initAgentFile(w.root, w.devx, name, values, ask);
  w.io.stdout.write(`${escapeControls(message)}\n`);
  return message.startsWith('created ') ? EXIT.ok : EXIT.failed;
}

function editOrRemoveAgent(w: Where, sub: 'edit' | 'rm', name: string | undefined, scope?: string): number {
  if (!name) throw new UsageError(`usage: devx agent ${sub} <name> [--scope project|user]`);
  const l = loadAgents(w.root, w.home, w.devx);
  const found = [...l.agents.values(), ...l.overridden].filter((a) => a.name === name && (!scope || a.scope === scope));
  // devx's own files are never edited or removed in place: a project or user file overrides them.
  const all = found.filter((a) => a.scope !== 'builtin');
  const builtin = found.find((a) => a.scope === 'builtin');
  if (!all.length && builtin)
    throw new UsageError(
      `"${name}" is a builtin agent (${builtin.file}); to change it, copy it to .devx/agents/${name}.md (project) or ~/.devx/agents/${name}.md (user), which override it`,
    );
  if (!all.length) throw new UsageError(`no agent named "${name}"${scope ? ` in the ${scope} scope` : ''}`);
  if (all.length > 1 && sub === 'rm')
    throw new UsageError(`"${name}" exists in several places (${all.map((a) => `${a.scope}: ${a.file}`).join('; ')}); pass --scope project or --scope user`);
  const target = all[0];
  if (sub === 'rm') {
    fs.rmSync(target.file);
    w.io.stdout.write(`removed ${escapeControls(target.file)}\n`);
    return EXIT.ok;
  }
  const r = runEditorSync(editorOf(w.io.env), target.file);
  return r.status === 0 ? EXIT.ok : EXIT.failed;
}
