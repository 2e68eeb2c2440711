// The contract every tool module implements. Tools hold only their own logic: argument validation,
// policy, confirmation, output truncation and error capture live in runToolCall.
import type { z } from 'zod';
import type { ProcessRunner } from '../util/processRunner.js';
import type { SandboxRun } from '../sandbox/bwrap.js';
import type { OutputLimits } from './limitOutput.js';
import type { Location, McpToolPolicy } from '../policy/types.js';
import type { LoadedImage } from './loadImage.js';
import type { BackgroundCommands } from './backgroundCommands.js';

export type { Location };

/** What a tool does to the world; the policy keys its defaults on it. */
export type ToolKind = 'read' | 'write' | 'execute' | 'meta';

export interface ToolContext {
  /** realpath of the project root. */
  root: string;
  signal: AbortSignal;
  runner: ProcessRunner;
  /** The session's environment: the programs a tool runs start from it (commandEnv), not from devx's own process. */
  env: NodeJS.ProcessEnv;
  /** Resolves a model-given path inside the root (symlinks followed) or throws a PathError. */
  resolve(p: string): string;
  /** True when the policy denies reading this absolute path: search_code and glob withhold it, list_directory marks it. */
  readDenied?: (abs: string) => boolean;
  /** Absolute path of ripgrep, or null to use the JS fallback. */
  rgPath: string | null;
  /** Default run_command timeout in ms. */
  commandTimeoutMs: number;
  /** Set for calls no person approved: commands then run inside this sandbox, held to the policy's claim. */
  sandbox?: SandboxRun | null;
  /** The live session, for tools that keep session state (todo, remember). */
  session?: SessionHooks;
  /** Starts a sub-agent (spawn_gemini); absent inside sub-agents (depth limit 1). */
  spawn?: (query: string, agent: string | undefined, signal: AbortSignal, account?: string) => Promise<{ answer: string; status: string }>;
  /** Starts a sub-agent running another agent for the `agent` tool; absent inside sub-agents (depth limit 1). */
  runAgent?: (name: string, input: string, signal: AbortSignal) => Promise<{ answer: string; status: string }>;
  /** Agents the active persona may call with the `agent` tool (its `agent:<name>` tools entries). */
  callableAgents?: string[];
  /** Live progress of long-running work inside a tool (one line per sub-agent in the REPL: spawn_gemini, the agent tool). */
  progress?: (e: SubtaskProgress) => void;
  /** Output of a running command as it arrives, for a person watching (the model gets the whole result). */
  output?: (tool: string, text: string) => void;
  /** Told when an approved call starts executing (after any question). */
  started?: (tool: string) => void;
  /** An editor's view of the files (ACP fs methods): unsaved buffers are read, and writes go through it. */
  editorFs?: EditorFs;
  /** Whether a WebFetch(domain:…) allow rule names this host, so web_fetch may reach it at a private address. */
  webHostNamed?: (host: string) => boolean;
  /** Opens the knowledge store on first use. */
  knowledge?: () => import('../knowledge/types.js').KnowledgeStore;
  /** Keeps what a call will change before it runs, for undo (runToolCall calls it; session/undoStore.ts). */
  changes?: ChangeJournal;
  /** The image model the user's login allows (generate_image), or what would enable one. */
  imageModel?: () => ImageModelAccess | { unavailable: string };
  /** The session's background commands (run_command background=true, command_output, stop_command). */
  background?: BackgroundCommands;
}

/** An image model generate_image can call (providers/gemini/imageModel.ts). */
export interface ImageModelAccess {
  readonly model: string;
  /** The image's bytes and type as the model returned them, and any text it added. */
  generate(prompt: string, signal: AbortSignal): Promise<{ mimeType: string; bytes: Buffer; text: string }>;
}

/** Undo's side of a tool call: the paths it will write are kept before it runs, their new state after. */
export interface ChangeJournal {
  /** Keeps what the absolute `paths` hold now, before `what` changes them. Throws if it cannot keep them. */
  before(paths: string[], what: string): void;
  /** Records what the call left at `paths`. Never throws. */
  after(paths: string[]): void;
  /** A call whose changes devx does not know: named as not undoable. */
  notUndoable(what: string, why: string): void;
}

/** Reading and writing through an editor (ACP's fs/read_text_file and fs/write_text_file), when it offers them. */
export interface EditorFs {
  /** The text the editor has for this file (an unsaved buffer too); null when it cannot say. */
  read?(abs: string): Promise<string | null>;
  write?(abs: string, text: string): Promise<void>;
}

export interface SubtaskProgress {
  id: number;
  label: string;
  phase: 'start' | 'end';
  status?: string;
  elapsedMs?: number;
}

export interface SessionHooks {
  getCheckpoint(): { objective?: string; todos: { text: string; done: boolean }[] };
  setCheckpoint(c: { objective?: string; todos: { text: string; done: boolean }[] }): { objective?: string; todos: { text: string; done: boolean }[] };
  remember(fact: string): { added: true; line: string } | { added: false; reason: string };
}

export interface ToolOutput {
  content: string;
  /** Short args echoed on the TOOL_RESULT header line. */
  meta?: Record<string, string | number | boolean | undefined>;
  /** A completed call whose outcome is a failure (e.g. a non-zero exit code). */
  isError?: boolean;
  /** Records the call created (e.g. `knowledge:<id>`), kept in the session record. */
  artifacts?: string[];
  /** Images the model is shown with this result (analyze_image). */
  images?: LoadedImage[];
}

/** A file change a tool would make, as it would land: the text its execute then writes, byte for byte. */
export interface PlannedChange {
  kind: 'create' | 'overwrite' | 'edit' | 'append';
  /** The file, absolute. */
  path: string;
  /** The file as the person sees it named (relative to the project root). */
  shown: string;
  /** The file's text now; null when it does not exist yet. */
  oldText: string | null;
  /** The file's whole text after the call. */
  newText: string;
  /** Why devx will refuse to write it, when that is known now (read-only). */
  refused?: string;
}

/** A member of the session a tool may use; each tool declares those it needs and receives only those. */
export type Capability = keyof ToolContext;

export interface Tool<S extends z.ZodType = z.ZodType, N extends Capability = Capability> {
  name: string;
  /** What the tool may touch of the session (the runner, the sandbox, the project's resolver...): it receives only these. */
  needs: readonly N[];
  kind: ToolKind;
  schema: S;
  /** A complete example call, checked by tests to parse and validate. */
  example: string;
  /** File under prompts/tools/ holding the description shown to the model. */
  descriptionFile: string;
  /** Inline description (custom tools), used instead of descriptionFile. */
  description?: string;
  /** For tools that run a program: the command line the policy judges, as run_command's would be. */
  commandFor?: (args: Record<string, unknown>) => string;
  /** Ask before running even when the policy allows it. */
  confirm?: boolean;
  /** A meta tool that changes what is not the conversation's (MEMORY.md, the knowledge store, a running background command): plan mode refuses it. */
  writesState?: boolean;
  /** What the call touches: each path with its intent. The policy judges these, and nothing else, for file tools. */
  locations?: (args: Record<string, unknown>) => Location[];
  /** The call in one line, for the REPL, confirmations, logs and "always allow" keys. */
  describe?: (args: Record<string, unknown>) => string;
  /** What the call would do, shown when the person is asked (a diff for edits, the directory for commands); from `planned` when the tool plans. */
  preview?: (ctx: Pick<ToolContext, N>, args: z.infer<S>, planned?: PlannedChange) => Promise<string | undefined>;
  /** For tools that write a file: the change as it would land, computed as execute computes it. Every surface that shows the change (the REPL's confirmation, ACP's diff) shows this. */
  plan?: (ctx: Pick<ToolContext, N>, args: z.infer<S>) => Promise<PlannedChange | undefined>;
  /** Claude Code's names for this tool (agent files and permission rules use them). */
  aliases?: string[];
  /** How much of its output the model sees; the rest is saved under .devx/tool-output/. */
  limits?: OutputLimits;
  /** Several calls of this tool in one reply may run at the same time (spawn_gemini). */
  concurrent?: boolean;
  /** Starts a sub-agent; not offered inside sub-agents (depth limit 1). */
  spawnsAgents?: boolean;
  /** Offered only to an agent whose `tools` names it (never to plain devx or a persona whose agent inherits every tool). */
  onlyWhenListed?: boolean;
  /** A tool of an MCP server (the policy asks unless the server is trusted). */
  mcp?: McpToolPolicy;
  /** For a tool that fetches a URL: the URL the policy judges (WebFetch(domain:…) rules). */
  urlFor?: (args: Record<string, unknown>) => string;
  /** The argument list the manual shows, when the zod schema cannot say it (MCP tools: required unless json= gives it). */
  manualArgs?: { name: string; optional: boolean; description: string }[];
  /** Why the tool cannot run in this session at all (checked before the policy asks anyone), or null. */
  unavailable?: (ctx: Pick<ToolContext, N>) => string | null;
  execute(ctx: Pick<ToolContext, N>, args: z.infer<S>): Promise<ToolOutput>;
}

/** An error written for the model to act on; thrown by tools, returned as an error result. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export function defineTool<S extends z.ZodType, N extends Capability>(tool: Tool<S, N>): Tool<S, N> {
  return tool;
}

/** The context with only the members a tool declared: what it does not name, it cannot reach. */
export function narrowContext<N extends Capability>(ctx: ToolContext, needs: readonly N[]): Pick<ToolContext, N> {
  const out = {} as Pick<ToolContext, N>;
  for (const k of needs) out[k] = ctx[k];
  return out;
}

const argText = (raw: unknown): string => (typeof raw === 'string' ? raw : (JSON.stringify(raw, null, 2) ?? String(raw)));
const shortened = (raw: unknown): boolean => {
  const v = argText(raw);
  return v.includes('\n') || v.length > 80;
};

/** `key=value` pairs in one line, long or multi-line values shown by size. */
export function summarizeArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, v]) => v !== undefined)
    .map(([k, raw]) => (shortened(raw) ? `${k}=<${argText(raw).split('\n').length} lines>` : `${k}=${argText(raw)}`))
    .join(' ');
}

/**
 * Every argument in full (`key:` and its value below it), for the confirmation of a call whose one-line summary
 * shortened one: a person approving an MCP tool's `command=<1 lines>` must see the command. Undefined when the
 * summary showed them all.
 */
export function argsPreview(args: Record<string, unknown>): string | undefined {
  const entries = Object.entries(args).filter(([, v]) => v !== undefined);
  if (!entries.some(([, v]) => shortened(v))) return undefined;
  return entries.map(([k, v]) => `${k}:\n${argText(v).replace(/^/gm, '  ')}`).join('\n');
}

/** The tool's own one-line description of a call, or its name and arguments. */
export function describeCall(tool: Pick<Tool, 'name' | 'describe'> | undefined, name: string, args: Record<string, unknown>): string {
  try {
    if (tool?.describe) return tool.describe(args);
  } catch {
    /* fall through: arguments the tool did not expect */
  }
  return `${name} ${summarizeArgs(args)}`.trim();
}
