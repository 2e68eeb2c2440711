import { readPrompt } from '../util/packageRoot.js';
import { renderToolManual } from '../tools/registry.js';
import type { Tool } from '../tools/types.js';

/** prompts/system.md with the project root and the manual generated from the tool modules. */
export function renderSystemPrompt(root: string, tools: Tool[]): string {
  return readPrompt('system.md').replace('{{PROJECT_ROOT}}', root).replace('{{TOOL_MANUAL}}', renderToolManual(tools));
}
