// The settings files' schema: every key devx reads from ~/.devx/settings.json and a project's
// .devx/settings.json and settings.local.json (settingsLayers.ts says which layer may set which).
import * as z from 'zod';
import { AccountSchema } from '../providers/accounts.js';
import { validateRule } from '../policy/permissions.js';
import { McpServersSchema } from './mcpSettings.js';
import { HooksSchema } from './hookSettings.js';

// Schemas are built on first use (z.lazy): a run without settings files never pays for building them,
// time that would be taken from the model CLI a one-shot run starts beside devx.
const RuleList = z.lazy(() =>
  z.array(
    z.string().superRefine((v, ctx) => {
      const err = validateRule(v);
      if (err) ctx.addIssue({ code: 'custom', message: `invalid rule ${JSON.stringify(v)}: ${err}` });
    }),
  ),
);

const ProviderSection = z.lazy(() =>
  z
    .object({
      bin: z.string().min(1).optional(),
      timeoutSec: z.number().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      retryBaseMs: z.number().int().min(0).optional(),
      retryMaxMs: z.number().int().min(0).optional(),
      accounts: z.array(AccountSchema).optional(),
      mode: z.enum(['spawn', 'warm']).optional(),
    })
    .strict(),
);

export const SettingsSchema = z.lazy(() =>
  z
    .object({
      model: z.string().min(1).optional(),
      fallbackModel: z.string().min(1).optional(),
      accounts: z.array(AccountSchema).optional(),
      provider: z.string().min(1).optional(),
      providers: z.record(z.string(), ProviderSection).optional(),
      /** Deprecated spelling of providers.gemini; still loads, with a warning. */
      gemini: ProviderSection.optional(),
      maxToolRounds: z.number().int().min(1).max(500).optional(),
      contextBudgetChars: z.number().int().min(10_000).optional(),
      /** Compact the older turns when the conversation passes this share of the budget (1: never on its own). */
      compactThreshold: z.number().min(0.2).max(1).optional(),
      commandTimeoutSec: z.number().int().min(1).max(3600).optional(),
      maxToolOutputChars: z.number().int().min(1000).optional(),
      permissions: z
        .object({
          allow: RuleList.optional(),
          ask: RuleList.optional(),
          deny: RuleList.optional(),
          additionalDirectories: z.array(z.string().min(1)).optional(),
        })
        .strict()
        .optional(),
      approvalMode: z.enum(['default', 'auto-edit', 'yolo', 'plan']).optional(),
      handoff: z.enum(['model', 'plain', 'off']).optional(),
      spawnConcurrency: z.number().int().min(1).max(16).optional(),
      autoDelegate: z.enum(['off', 'suggest', 'apply']).optional(),
      knowledge: z
        .object({
          collection: z
            .string()
            .regex(/^[A-Za-z0-9_-]+$/)
            .optional(),
          embeddings: z
            .union([z.enum(['none', 'gemini']), z.object({ command: z.array(z.string().min(1)).min(1), dims: z.number().int().min(1).max(8192) }).strict()])
            .optional(),
        })
        .strict()
        .optional(),
      /** MCP servers whose tools become devx tools (mcp__<server>__<tool>). */
      mcpServers: McpServersSchema.optional(),
      /** The persona (an agent's name) a session starts with. */
      defaultAgent: z.string().min(1).optional(),
      rateLimits: z
        .object({ toolCallsPerMinute: z.number().int().min(1).optional(), commandsPerMinute: z.number().int().min(1).optional() })
        .strict()
        .optional(),
      /** The project's test command, which workflows run to confirm a developer's claim (else detected). */
      testCommand: z.string().min(1).optional(),
      /** Where the task queue lives: "file" (.devx/agents/, the default) or a postgres:// URL (queue/openQueue.ts). */
      queue: z
        .string()
        .regex(/^(file|postgres(ql)?:\/\/.*)$/i, 'must be "file" or a postgres:// URL')
        .optional(),
      /** Programs run at points of a session, in Claude Code's format (config/hookSettings.ts). */
      hooks: HooksSchema.optional(),
      /** Use the MCP servers, skills, commands and hooks kept for Claude Code and Gemini CLI (default true). */
      importSetup: z.boolean().optional(),
    })
    .strict(),
);

export type Settings = z.infer<typeof SettingsSchema>;
