// devx's own REPL slash commands, one table: the REPL looks a command up here (custom commands come after
// it), /help is written from it, and Tab completes its names. runtime/customCommands.ts keeps the same
// names in BUILTIN_COMMANDS (the runtime cannot import cli); test/unit/slashCommands.test.ts holds the two equal.
import type { Started } from '../runtime/startSession.js';
import { applyResume } from '../runtime/startSession.js';
import { renderCheckpoint } from '../tools/todo.js';
import { describeArgs } from '../tools/registry.js';
import { handleAgentSlash } from './agentSlash.js';
import type { PickItem } from './agentPicker.js';
import { runWorkflowSlash } from './workflowSlash.js';
import { renderMcpStatus } from './commands/mcp.js';
import { undoSlash } from './commands/undo.js';
import { renderCustomHelp } from './help.js';
import { parseFlags } from './command.js';
import { describeState, renderBackgroundList } from '../tools/backgroundCommands.js';
import { contextWindow } from '../providers/contextWindow.js';
import { renderContext, renderStats } from './usageReport.js';

/** What a slash command may use of the REPL it runs in. */
export interface SlashContext {
  started: Started;
  out: NodeJS.WritableStream;
  /** The CLI's commands (the command table's names), for /help's last line. */
  shellCommands?: string[];
  /** Asks the user to pick an agent, for the persona (interactive sessions only). */
  pick?: (items: PickItem[]) => Promise<string | null>;
  /** Asks a question through the REPL's input (interactive sessions only). */
  ask?: (question: string) => Promise<string | null>;
  /** Opens the background commands' view (interactive sessions only): /bg without arguments. */
  viewBackground?: () => Promise<void>;
  /** Opens $VISUAL/$EDITOR on this text; null when nothing was written. */
  edit(initial?: string): string | null;
  /** Runs work that Ctrl-C cancels. */
  cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Told the exit code of a command that failed (a one-shot run exits with it). */
  failed?: (code: number) => void;
}

/** 'continue': back to the prompt; 'exit': leave; { message }: handle this text as if it had been typed. */
export type SlashResult = 'continue' | 'exit' | { message: string };

export interface SlashCommand {
  /** The names it answers to, without the slash; the first is the one /help shows. */
  names: string[];
  /** `/name:…` forms it also takes (e.g. `agent:` for /agent:start). */
  prefixes?: string[];
  /** The arguments, as /help shows them after the name. */
  args?: string;
  summary: string;
  /** More forms for /help, each a line of its own. */
  forms?: { usage: string; summary: string }[];
  /** Offered to ACP editors too (as an available command; its output is the answer). */
  editor?: boolean;
  /** Taken even when the message has several lines (the text after the name is its argument). */
  multiline?: boolean;
  /**
   * Why it has no meaning without the REPL in a terminal (`devx run "/edit"`, an ACP prompt); absent for one
   * that runs there as in the REPL. A function when only some forms need the REPL (its arguments given).
   */
  replOnly?: string | ((args: string) => string | null);
  /** Prints on the process's stdout itself (a CLI command's handler): an editor collects that as its answer. */
  printsToStdout?: boolean;
  /** Absent for a command handled elsewhere (/drop, which the input takes while a turn runs). */
  run?: (ctx: SlashContext, args: string, line: string) => Promise<SlashResult>;
}

export const SLASH_COMMANDS: SlashCommand[] = [
  {
    names: ['help'],
    editor: true,
    summary: 'this help',
    run: async (ctx) => (ctx.out.write(`${replHelp()}\n${renderCustomHelp(ctx.started.run.agent.commands)}${shellHelp(ctx.shellCommands)}`), 'continue'),
  },
  {
    names: ['tools'],
    editor: true,
    summary: 'the tools the model can call',
    run: async (ctx) => {
      await ctx.started.run.ready(); // MCP servers' tools
      for (const t of ctx.started.run.agent.tools)
        ctx.out.write(`  ${[t.name, ...describeArgs(t).map((a) => (a.optional ? `[${a.name}]` : a.name))].join(' | ')}\n`);
      return 'continue';
    },
  },
  {
    names: ['mcp'],
    editor: true,
    summary: 'MCP servers of this session: state and tools',
    run: async (ctx) => {
      // Servers start in the background: a few seconds for them to finish, then their state as it is ("starting" included).
      await Promise.race([ctx.started.run.ready(), new Promise((r) => setTimeout(r, 3000).unref())]);
      ctx.out.write(renderMcpStatus(ctx.started.run.agent.mcp?.statuses() ?? [], undefined));
      return 'continue';
    },
  },
  { names: ['history'], editor: true, summary: 'the conversation so far', run: async (ctx) => (printHistory(ctx), 'continue') },
  {
    names: ['clear'],
    editor: true,
    summary: 'forget the conversation and start over',
    run: async (ctx) => (ctx.started.run.reset(), ctx.out.write('Conversation cleared.\n'), 'continue'),
  },
  {
    names: ['compact'],
    editor: true,
    summary: 'summarise the older turns into one note now (done on its own near the context budget)',
    run: async (ctx) => {
      const r = await ctx.cancellable((signal) => ctx.started.run.compact({ signal }));
      if (r.status === 'nothing') ctx.out.write(`${r.message}\n`);
      return 'continue';
    },
  },
  {
    names: ['todos'],
    editor: true,
    summary: 'the task checkpoint (objective and todo list)',
    run: async (ctx) => (ctx.out.write(`${renderCheckpoint(ctx.started.session.getCheckpoint())}\n`), 'continue'),
  },
  {
    names: ['undo'],
    editor: true,
    args: '[N] [--force] | --list',
    summary: 'put back the files devx changed in the newest N turns (default 1)',
    run: async (ctx, _args, line) => (undoSlash(line, ctx.started, ctx.out), 'continue'),
  },
  {
    names: ['plan'],
    args: '[task] | off',
    summary: 'plan mode: the model explores read-only and writes a plan you approve before anything changes (Shift+Tab cycles modes)',
    replOnly: 'a plan waits for a person to approve it: use /plan in the REPL, or `devx run --approval-mode plan "<task>"` for a read-only run',
    run: async (ctx, args) => {
      const run = ctx.started.run;
      if (args === 'off') {
        run.setMode(run.mode === 'plan' ? 'default' : run.mode);
        ctx.out.write(`mode: ${run.mode}\n`);
        return 'continue';
      }
      run.setMode('plan');
      if (args) return { message: args };
      ctx.out.write('mode: plan (read-only: the next task gets a plan to approve; /plan off or Shift+Tab leaves it)\n');
      return 'continue';
    },
  },
  {
    names: ['bg'],
    args: '[stop <id>]',
    editor: true,
    summary:
      "this session's background commands (in a terminal a view: ↑/↓, k stops one, Enter shows its output, Esc closes; Ctrl-T opens it too); /bg stop <id> stops one (its whole process group)",
    run: async (ctx, args) => (await backgroundSlash(ctx, args), 'continue'),
  },
  {
    names: ['stats'],
    editor: true,
    summary: 'tokens (input, cached, output), model calls and time, for the session and the last turn',
    run: async (ctx) => (ctx.out.write(renderStats(ctx.started.run.usage)), 'continue'),
  },
  {
    names: ['context'],
    editor: true,
    summary: "how full the prompt is, against devx's budget and the model's window",
    run: async (ctx) => (ctx.out.write(renderContext(contextFigures(ctx.started))), 'continue'),
  },
  {
    names: ['resume'],
    args: '[id]',
    replOnly: 'continues an earlier session in this one: run `devx --resume [id]`, or `devx run --resume [id] "<prompt>"`',
    summary: "restore an earlier session's checkpoint and conversation",
    run: async (ctx, args) => (ctx.out.write(`${applyResume(ctx.started, args.split(/\s+/)[0] || undefined) ?? 'no earlier session to resume'}\n`), 'continue'),
  },
  {
    names: ['agent'],
    prefixes: ['agent:'],
    summary: 'pick an agent as the persona (arrow keys, type to filter, Enter to switch)',
    printsToStdout: true,
    editor: true,
    replOnly: (args) =>
      /^(use|pick)\b/.test(args) ? 'chooses the persona of an interactive session: run `devx run --agent <name> "<prompt>"`, or `devx --agent <name>`' : null,
    forms: [
      { usage: '/agent list | show <name> | use <name> | use default', summary: 'list or show agents; use one as the persona (/agent --help for all)' },
      { usage: '/agent:start <name> "<prompt>" | /agent:run | /agent:status', summary: 'the task queue' },
    ],
    run: async (ctx, _args, line) => (reportFailure(ctx, await handleAgentSlash(line, ctx.started, ctx.out, ctx.pick, ctx.ask)), 'continue'),
  },
  {
    names: ['memory'],
    args: 'add "<content>" | search "<query>" | list | delete <id>... | import <dir>',
    summary: 'the knowledge store, as `devx memory` (--json and the other flags too)',
    printsToStdout: true,
    editor: true,
    run: async (ctx, args) => (reportFailure(ctx, await runMemorySlash(args, ctx.out)), 'continue'),
  },
  {
    names: ['workflow'],
    args: 'list | run --mode bugfix "<request>" | status [id] | resume <id> | ...',
    summary: 'multi-phase workflows',
    printsToStdout: true,
    editor: true,
    run: async (ctx, _args, line) => (await runWorkflowSlash(line, ctx.out), 'continue'),
  },
  {
    names: ['edit'],
    args: '[text]',
    summary: 'write a long message in $VISUAL/$EDITOR (Ctrl-X Ctrl-E too)',
    replOnly: 'opens your editor for a message of the REPL: run `devx` in a terminal',
    multiline: true,
    run: async (ctx, args) => {
      const edited = ctx.edit(args || undefined);
      if (edited === null) return (ctx.out.write('(nothing to send)\n'), 'continue');
      ctx.out.write(`${edited.split('\n').length} lines from the editor\n`);
      return { message: edited };
    },
  },
  { names: ['drop'], summary: 'typed while devx works: take back what you typed meanwhile' },
  {
    names: ['exit', 'quit'],
    summary: 'leave (Ctrl-D works too)',
    replOnly: 'leaves the REPL; a one-shot run ends on its own',
    run: async () => 'exit',
  },
];

/**
 * `/bg` lists the background commands (in a terminal, the view where a key stops one); `/bg stop <id>` stops
 * one and says how it ended.
 */
async function backgroundSlash(ctx: SlashContext, args: string): Promise<void> {
  const bg = ctx.started.run.agent.background;
  const [verb, id] = args.split(/\s+/);
  if (!verb && ctx.viewBackground && bg.list().length) return ctx.viewBackground();
  if (!verb) return void ctx.out.write(renderBackgroundList(bg.list()));
  if (verb !== 'stop' || !id) return void ctx.out.write('usage: /bg, or /bg stop <id>\n');
  const before = bg.list().find((v) => v.id === id);
  if (!before) return void ctx.out.write(`no background command "${id}" in this session\n`);
  if (before.state !== 'running') return void ctx.out.write(`${id} had already ended: ${describeState(before)}\n`);
  const v = await bg.stop(id, 'person');
  ctx.out.write(`${id} ${v ? describeState(v) : 'stopped'}\n`);
}

/** The figures /context shows: the prompt the next turn would send, the budget and the model's window. */
function contextFigures({ run }: Started): Parameters<typeof renderContext>[0] {
  const deps = run.loopDeps;
  const s = run.agent.settings;
  return {
    promptChars: deps.buildPrompt(run.history, run.history.length).length,
    systemChars: deps.systemPrompt.length,
    budgetChars: s.contextBudgetChars,
    compactThreshold: s.compactThreshold,
    model: run.model,
    windowTokens: contextWindow(run.model),
    last: run.usage.lastPrompt,
  };
}

/** Tells the context a command's non-zero exit code. */
function reportFailure(ctx: SlashContext, code: number): void {
  if (code !== 0) ctx.failed?.(code);
}

/** `/memory …`: `devx memory …` with the same words and flags; its exit code. */
async function runMemorySlash(args: string, out: NodeJS.WritableStream): Promise<number> {
  const words = (args.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
  const { memoryCommand } = await import('./commands/memory.js');
  try {
    return await memoryCommand.run(parseFlags(memoryCommand.flags, words));
  } catch (err) {
    out.write(`${(err as Error).message}\n`);
    return 2;
  }
}

/** Why a command (with these arguments) has no meaning outside the REPL; null when it runs anywhere. */
export function whyReplOnly(command: SlashCommand, args: string): string | null {
  const r = command.replOnly;
  return typeof r === 'function' ? r(args) : (r ?? null);
}

/** Every name of the table, without the slash (what BUILTIN_COMMANDS must hold). */
export const slashNames = (): string[] => SLASH_COMMANDS.flatMap((c) => c.names);

/** The table's command a line names, with the text after the name; null when none (a custom command, or a message). */
export function findSlash(line: string): { command: SlashCommand; args: string } | null {
  if (!line.startsWith('/')) return null;
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line);
  if (!m) return null;
  const name = m[1];
  const command = SLASH_COMMANDS.find((c) => c.names.includes(name) || c.prefixes?.some((p) => name.startsWith(p)));
  if (!command?.run || (line.includes('\n') && !command.multiline)) return null;
  return { command, args: (m[2] ?? '').trim() };
}

const KEYS = `Keys: Ctrl-C stops the turn (at a question: no); Ctrl-O shows a running command's whole output;
Ctrl-T (at the prompt) shows the background commands: ↑/↓, k stops one, Enter its output, Esc closes.
A pasted block is one message; a line ending in \\ continues on the next.
Ctrl-C cancels a running turn; Ctrl-C twice at the prompt exits.`;

/** /help's text for devx's own commands, from the table. */
export function replHelp(): string {
  const line = (usage: string, summary: string) => `  ${usage.length < 10 ? usage.padEnd(11) : `${usage}  `}${summary}`;
  const lines = SLASH_COMMANDS.flatMap((c) => [
    line(`/${c.names[0]}${c.args ? ` ${c.args}` : ''}`, c.summary),
    ...(c.forms ?? []).map((f) => line(f.usage, f.summary)),
  ]);
  return `Commands:\n${lines.join('\n')}\n${KEYS}`;
}

/** /help's last line: the same table `devx --help` is written from. */
export function shellHelp(names: string[] | undefined): string {
  return names?.length ? `From the shell: devx ${names.join(', ')} (devx help <command> for each)\n` : '';
}

function printHistory({ started: { run }, out }: SlashContext): void {
  if (!run.history.length) {
    out.write('(no conversation yet)\n');
    return;
  }
  for (const m of run.history) {
    const first = m.content.split('\n')[0].slice(0, 100);
    const more = m.content.includes('\n') ? ` (+${m.content.split('\n').length - 1} lines)` : '';
    out.write(`${m.at.slice(11, 19)} ${m.role.padEnd(9)} ${first}${more}\n`);
  }
}
