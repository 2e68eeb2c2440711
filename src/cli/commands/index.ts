// Every CLI command. Adding one is a module in this folder and one line here.
import type { Command } from '../command.js';
import { replCommand } from './repl.js';
import { runCommand } from './run.js';
import { agentCommand } from './agent.js';
import { sessionsCommand } from './sessions.js';
import { handoffCommand } from './handoff.js';
import { memoryCommand } from './memory.js';
import { policyCommand } from './policy.js';
import { auditCommand } from './audit.js';
import { trustCommand } from './trust.js';
import { protocolCommand } from './protocol.js';
import { taskCommand } from './task.js';
import { workflowCommand } from './workflow.js';
import { mcpCommand } from './mcp.js';

export const COMMANDS: Command[] = [replCommand, runCommand, agentCommand, sessionsCommand, handoffCommand, memoryCommand, policyCommand, auditCommand, trustCommand, protocolCommand, taskCommand, workflowCommand, mcpCommand] as Command[];

export { replCommand };
