// The built-in tools and the manual generated from them (so prompt and code cannot drift).
import * as z from 'zod';
import type { Tool } from './types.js';
import { readFileTool } from './readFile.js';
import { writeFileTool } from './writeFile.js';
import { editFileTool } from './editFile.js';
import { listDirectoryTool } from './listDirectory.js';
import { globTool } from './glob.js';
import { searchCodeTool } from './searchCode.js';
import { runCommandTool } from './runCommand.js';
import { commandOutputTool } from './commandOutput.js';
import { stopCommandTool } from './stopCommand.js';
import { todoTool } from './todo.js';
import { rememberTool } from './remember.js';
import { queryKnowledgeTool, storeKnowledgeTool } from './knowledgeTools.js';
import { spawnGeminiTool } from './spawnGemini.js';
import { analyzeImageTool } from './analyzeImage.js';
import { analyzeMediaTool } from './analyzeMedia.js';
import { generateImageTool } from './generateImage.js';
import { appendFileTool } from './appendFile.js';
import { agentTool } from './agentTool.js';
import { webFetchTool } from './webFetch.js';
import { readPrompt } from '../util/packageRoot.js';

export function builtinTools(): Tool[] {
  return [
    readFileTool,
    writeFileTool,
    appendFileTool,
    editFileTool,
    listDirectoryTool,
    globTool,
    searchCodeTool,
    analyzeImageTool,
    analyzeMediaTool,
    generateImageTool,
    runCommandTool,
    commandOutputTool,
    stopCommandTool,
    todoTool,
    rememberTool,
    storeKnowledgeTool,
    queryKnowledgeTool,
    spawnGeminiTool,
    agentTool,
    webFetchTool,
  ] as Tool[];
}

/** Claude Code tools devx has no equivalent of (an agent that lists them runs without them). */
const NO_EQUIVALENT = ['WebSearch', 'ExitPlanMode', 'SlashCommand'];

/**
 * A tool name as agent files and rules write it, in devx's terms: a devx name or a Claude Code alias
 * declared by the tool itself. Returns null for a Claude tool devx lacks, undefined for an unknown name.
 */
export function resolveToolName(name: string, tools: Tool[] = builtinTools()): string | null | undefined {
  const t = tools.find((x) => x.name === name || x.aliases?.includes(name));
  if (t) return t.name;
  return NO_EQUIVALENT.includes(name) ? null : undefined;
}

/** The names an agent file may use, for error messages. */
export function knownToolNames(tools: Tool[] = builtinTools()): string[] {
  return tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]);
}

export interface ArgInfo {
  name: string;
  optional: boolean;
  description: string;
}

export function describeArgs(tool: Tool): ArgInfo[] {
  if (tool.manualArgs) return tool.manualArgs;
  const shape = (tool.schema as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, field]) => {
    const optional = field instanceof z.ZodOptional;
    const inner = (optional ? (field as z.ZodOptional).unwrap() : field) as z.ZodType;
    return { name, optional, description: inner.description ?? field.description ?? '' };
  });
}

export function toolDescription(tool: Tool): string {
  return tool.description ?? readPrompt(tool.descriptionFile).trim();
}

/** One tool's manual entry: signature, argument list, description and example. */
export function renderToolEntry(tool: Tool): string {
  const args = describeArgs(tool);
  const sig = [tool.name, ...args.map((a) => (a.optional ? `[${a.name}]` : a.name))].join(' | ');
  const argLines = args.map((a) => `- \`${a.name}\`${a.optional ? ' (optional)' : ''}: ${a.description}`);
  return [`### ${tool.name}`, `\`${sig}\``, '', toolDescription(tool), '', ...argLines, '', 'Example:', '', tool.example].join('\n');
}

export function renderToolManual(tools: Tool[]): string {
  return tools.map(renderToolEntry).join('\n\n');
}
