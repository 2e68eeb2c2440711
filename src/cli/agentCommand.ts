// `devx agent list|show|use|run|start|status|cancel|retry|create|edit|rm|suggest` (also /agent in the REPL).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import readlineSync from 'readline-sync';
import { createAgent, type Agent } from './createAgent.js';
import { UsageError, approvalModeFrom, checkBinaries, EXIT } from './runCli.js';
import { loadAgents, type AgentDef } from '../agents/loadAgents.js';
import { applyAgent, AgentConfigError } from '../agents/applyAgent.js';
import { TaskQueue, renderStatusTable } from '../agents/taskQueue.js';
import { runTasks } from '../agents/runTasks.js';
import { suggestAgent } from '../agents/suggestAgent.js';
import { runTurn } from '../agent/loop.js';
import { createRenderer } from './renderEvents.js';
import { createAuditSubscriber } from '../audit/auditLog.js';
import { devxHome, findProjectRoot } from '../config/paths.js';
import { packageRoot } from '../util/packageRoot.js';

export const AGENT_USAGE = `usage:
  devx agent list                         agents from both scopes (project overrides user)
  devx agent show <name>                  the resolved definition
  devx agent run <name> "<prompt>" [then <name> "<prompt>"]...  one-shot run, answers chained
        [--model M] [--provider gemini] [--dry-run] [--yes]
  devx agent start <name> "<prompt>"      queue a task
  devx agent run [--all] [--parallel N]   run the oldest pending task (or drain the queue)
  devx agent status [--json]              the task table
  devx agent cancel <id> | retry <id>
  devx agent create [--name N] [--description D] [--template T] [--scope project|user]
  devx agent edit <name> | rm <name> [--scope project|user]
  devx agent suggest "<prompt>"           which agent fits a task`;

const TEMPLATES = ['code-reviewer', 'test-runner', 'docs-writer', 'release-bot'];

function where(root: string) {
  const home = process.env.HOME ?? '';
  return { root, home, devx: devxHome(process.env) };
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
  for (let i = 0; i < words.length; ) {
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

async function oneShot(agent: Agent, steps: { agent: string; prompt: string }[], flags: { model?: string; provider?: string; 'dry-run'?: boolean; json?: boolean }): Promise<number> {
  const loaded = loadAgents(agent.root, agent.userHome, agent.devxHome);
  const audit = createAuditSubscriber(agent.auditPath, agent.session);
  agent.subListeners.push(audit);
  let previous: { agent: string; answer: string } | null = null;
  const results: { agent: string; status: string; answer?: string }[] = [];
  for (const step of steps) {
    const def = loaded.agents.get(step.agent);
    if (!def) throw new UsageError(`no agent named "${step.agent}". Known: ${[...loaded.agents.keys()].join(', ') || '(none)'}`);
    let deps;
    try {
      deps = applyAgent(agent.deps, agent.tools, agent.root, def, { model: flags.model, provider: flags.provider });
    } catch (err) {
      if (err instanceof AgentConfigError) throw new UsageError(err.message);
      throw err;
    }
    if (flags['dry-run']) deps = { ...deps, dryRun: true };
    const input = previous ? `${step.prompt}\n\nInput from the previous step (${previous.agent}):\n${previous.answer}` : step.prompt;
    if (steps.length > 1) process.stderr.write(`── ${def.name}\n`);
    const render = createRenderer({ out: process.stderr, answerOut: flags.json ? null : process.stdout });
    const r = await runTurn(deps, [], input, {
      signal: new AbortController().signal,
      emit: (e) => {
        audit(e);
        render.onEvent(e);
      },
    });
    results.push({ agent: def.name, status: r.status, answer: r.answer });
    if (r.status !== 'answered') break;
    previous = { agent: def.name, answer: r.answer ?? '' };
  }
  if (flags.json) process.stdout.write(`${JSON.stringify({ steps: results }, null, 2)}\n`);
  return results.every((r) => r.status === 'answered') && results.length === steps.length ? EXIT.ok : EXIT.failed;
}

export async function runAgentCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      parallel: { type: 'string' },
      model: { type: 'string', short: 'm' },
      provider: { type: 'string' },
      'dry-run': { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      'approval-mode': { type: 'string' },
      scope: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      template: { type: 'string' },
      lease: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [sub, ...rest] = positionals;
  const root = findProjectRoot(process.cwd());
  const w = where(root);
  const queue = new TaskQueue(root);
  switch (sub) {
    case 'list': {
      const l = loadAgents(root, w.home, w.devx);
      for (const e of l.errors) process.stderr.write(`error: ${e.file}: ${e.message}\n`);
      for (const e of l.warnings) process.stderr.write(`warning: ${e.file}: ${e.message}\n`);
      const rows = [...l.agents.values()].map((a) => ({ name: a.name, scope: a.scope, format: a.format, description: a.description, overrides: l.overridden.filter((o) => o.name === a.name).map((o) => `${o.scope}:${o.format}`) }));
      if (values.json) process.stdout.write(`${JSON.stringify({ agents: rows, errors: l.errors, warnings: l.warnings }, null, 2)}\n`);
      else if (!rows.length) process.stdout.write(`no agents yet: create one with devx agent create (templates: ${TEMPLATES.join(', ')})\n`);
      else for (const r of rows) process.stdout.write(`${r.name.padEnd(20)} ${r.scope.padEnd(7)} ${r.format.padEnd(16)} ${r.overrides.length ? `(overrides ${r.overrides.join(', ')}) ` : ''}${r.description}\n`);
      return l.errors.length ? EXIT.failed : EXIT.ok;
    }
    case 'show': {
      const a = loadAgents(root, w.home, w.devx).agents.get(rest[0] ?? '');
      if (!a) throw new UsageError(`no agent named "${rest[0] ?? ''}"`);
      process.stdout.write(`${values.json ? JSON.stringify(a, null, 2) : describeAgent(a)}\n`);
      return EXIT.ok;
    }
    case 'use':
      process.stdout.write(`Switch persona inside a session: /agent use ${rest[0] ?? '<name>'} in the REPL, or start one with devx --agent ${rest[0] ?? '<name>'}.\n`);
      return EXIT.ok;
    case 'suggest': {
      const s = suggestAgent(rest.join(' '), [...loadAgents(root, w.home, w.devx).agents.values()]);
      process.stdout.write(s ? `${s.agent.name} (score ${s.score.toFixed(2)}): ${s.agent.description}\n` : 'no agent fits clearly\n');
      return EXIT.ok;
    }
    case 'start': {
      if (rest.length !== 2) throw new UsageError('usage: devx agent start <agent> "<prompt>"');
      const agents = loadAgents(root, w.home, w.devx).agents;
      if (!agents.has(rest[0])) throw new UsageError(`no agent named "${rest[0]}". Known: ${[...agents.keys()].join(', ') || '(none)'}`);
      const t = await queue.start(rest[0], rest[1]);
      process.stdout.write(values.json ? `${JSON.stringify(t)}\n` : `Task ${t.taskId} created for agent '${rest[0]}' and is now pending.\n`);
      return EXIT.ok;
    }
    case 'status': {
      await queue.recover();
      const tasks = queue.list();
      process.stdout.write(values.json ? `${JSON.stringify(tasks, null, 2)}\n` : tasks.length ? `${renderStatusTable(tasks)}\n` : 'No agent tasks.\n');
      return EXIT.ok;
    }
    case 'cancel':
    case 'retry': {
      if (rest.length !== 1) throw new UsageError(`usage: devx agent ${sub} <task id>`);
      try {
        const t = sub === 'cancel' ? await queue.cancel(rest[0]) : await queue.retry(rest[0]);
        process.stdout.write(`Task ${t.taskId} is now ${t.cancelRequested ? 'being cancelled' : t.status}.\n`);
        return EXIT.ok;
      } catch (err) {
        process.stderr.write(`devx: ${(err as Error).message}\n`);
        return EXIT.failed;
      }
    }
    case 'create': {
      const interactive = Boolean(process.stdin.isTTY);
      const ask = (q: string, def = '') => (interactive ? readlineSync.question(`${q}${def ? ` [${def}]` : ''}: `, { defaultInput: def }) : def);
      const template = values.template ?? ask(`Template (${TEMPLATES.join(', ')})`, 'code-reviewer');
      if (!TEMPLATES.includes(template)) throw new UsageError(`unknown template "${template}"; choose one of ${TEMPLATES.join(', ')}`);
      const name = values.name ?? ask('Name', template);
      if (!/^[a-z0-9][a-z0-9_-]*$/i.test(name)) throw new UsageError('names are letters, digits, - or _');
      const scope = values.scope ?? ask('Scope (project or user)', 'project');
      if (scope !== 'project' && scope !== 'user') throw new UsageError('--scope is project or user');
      const text = fs.readFileSync(path.join(packageRoot(), 'prompts', 'agents', `${template}.md`), 'utf8');
      const description = values.description ?? ask('Description', /description: (.*)/.exec(text)?.[1] ?? '');
      const dir = scope === 'project' ? path.join(root, '.devx', 'agents') : path.join(w.devx, 'agents');
      const file = path.join(dir, `${name}.md`);
      if (fs.existsSync(file)) throw new UsageError(`${file} already exists; edit it with devx agent edit ${name}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(file, text.replace(/^name: .*$/m, `name: ${name}`).replace(/^description: .*$/m, `description: ${description.replace(/\n/g, ' ')}`));
      process.stdout.write(`created ${file}\n`);
      return EXIT.ok;
    }
    case 'edit':
    case 'rm': {
      const name = rest[0];
      if (!name) throw new UsageError(`usage: devx agent ${sub} <name>${sub === 'rm' ? ' [--scope project|user]' : ''}`);
      const l = loadAgents(root, w.home, w.devx);
      const all = [...l.agents.values(), ...l.overridden].filter((a) => a.name === name && (!values.scope || a.scope === values.scope));
      if (!all.length) throw new UsageError(`no agent named "${name}"${values.scope ? ` in the ${values.scope} scope` : ''}`);
      if (all.length > 1 && sub === 'rm') throw new UsageError(`"${name}" exists in several places (${all.map((a) => `${a.scope}: ${a.file}`).join('; ')}); pass --scope project or --scope user`);
      const target = all[0];
      if (sub === 'rm') {
        fs.rmSync(target.file);
        process.stdout.write(`removed ${target.file}\n`);
        return EXIT.ok;
      }
      const editor = process.env.VISUAL ?? process.env.EDITOR ?? 'vi';
      const r = spawnSync(editor, [target.file], { stdio: 'inherit', shell: /\s/.test(editor) });
      return r.status === 0 ? EXIT.ok : EXIT.failed;
    }
    case 'run': {
      const agent = await createAgent({ cwd: process.cwd(), env: process.env, yes: values.yes, approvalMode: approvalModeFrom(values) });
      try {
        const missing = checkBinaries(agent, process.env);
        if (missing) {
          process.stderr.write(`${missing}\n`);
          return EXIT.missingBinary;
        }
        if (rest.length) return await oneShot(agent, parseChain(rest), values);
        const parallel = values.parallel ? Number(values.parallel) : 1;
        if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError('--parallel takes a whole number from 1 to 32');
        const audit = createAuditSubscriber(agent.auditPath, agent.session);
        agent.subListeners.push(audit);
        const ran = await runTasks(agent, queue, {
          all: Boolean(values.all),
          parallel,
          leaseMs: values.lease ? Number(values.lease) * 1000 : 120_000,
          model: values.model,
          onEvent: audit,
          onTaskStart: (t) => process.stderr.write(`running ${t.taskId} (${t.agent}, attempt ${t.attempts})\n`),
          onTaskEnd: (t) => process.stdout.write(`Orchestrator finished task ${t.taskId}: ${t.status}.\n`),
        });
        if (!ran.length) process.stdout.write('No pending agent tasks found.\n');
        return ran.every((t) => t.status === 'complete') ? EXIT.ok : EXIT.failed;
      } finally {
        agent.dispose();
      }
    }
    default:
      throw new UsageError(AGENT_USAGE);
  }
}
