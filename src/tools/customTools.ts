// Declarative custom tools: YAML files in .devx/tools/ (project) and ~/.devx/tools/
// (user), e.g. copied from devx's tools/ folder. A custom tool runs one program with arguments
// filled from the call (no shell), and goes through the same command policy as run_command, so a
// definition can ask for more confirmation but never widen what the policy allows.
import { yamlFilesIn } from '../util/yamlFiles.js';
import path from 'node:path';
import { createRequire } from 'node:module';
import { readDefinitionSync } from '../util/readRegularFileSync.js';

// yaml loads only when a file needs parsing (start-up stays light).
const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');
import { quote } from 'shell-quote';
import * as z from 'zod';
import { defineTool, type Tool } from './types.js';
import { movedNote, runContained } from './runContained.js';

// Built on first use: most projects define no custom tools.
const DefSchema = z.lazy(() =>
  z
    .object({
      name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'lowercase letters, digits and _'),
      description: z.string().min(1),
      command: z.array(z.string()).min(1),
      args: z
        .record(
          z.string().regex(/^[a-z_][a-z0-9_]*$/),
          z.object({ description: z.string().default(''), required: z.boolean().default(false), default: z.string().optional() }).strict(),
        )
        .default({}),
      confirmation_required: z.boolean().default(true),
      timeout: z.number().int().min(1).max(3600).default(120),
    })
    .strict(),
);

export type CustomToolDef = z.infer<typeof DefSchema>;

export interface CustomToolLoad {
  tools: Tool[];
  errors: { file: string; message: string }[];
}

/** Fills {{arg}} placeholders element by element; an element that is only a missing optional arg is dropped. */
export function fillCommand(def: CustomToolDef, args: Record<string, string | undefined>): string[] {
  const out: string[] = [];
  for (const part of def.command) {
    const only = /^\{\{([a-z_][a-z0-9_]*)\}\}$/.exec(part);
    if (only) {
      const v = args[only[1]] ?? def.args[only[1]]?.default;
      if (v !== undefined && v !== '') out.push(v);
      continue;
    }
    out.push(part.replace(/\{\{([a-z_][a-z0-9_]*)\}\}/g, (_, k: string) => args[k] ?? def.args[k]?.default ?? ''));
  }
  return out;
}

function toTool(def: CustomToolDef, file: string): Tool {
  const shape: Record<string, z.ZodType> = {};
  for (const [k, a] of Object.entries(def.args)) shape[k] = a.required ? z.string().describe(a.description) : z.string().optional().describe(a.description);
  const example = `TOOL_CALL: ${def.name}${Object.entries(def.args)
    .filter(([, a]) => a.required)
    .map(([k]) => ` | ${k}=...`)
    .join('')}`;
  return defineTool({
    name: def.name,
    needs: ['env', 'root', 'runner', 'sandbox', 'signal'],
    kind: 'execute',
    descriptionFile: '',
    description: `${def.description} (custom tool from ${file}; runs: ${def.command.join(' ')})`,
    example,
    schema: z.object(shape),
    commandFor: (args: Record<string, unknown>) => quote(fillCommand(def, args as Record<string, string>)),
    confirm: def.confirmation_required,
    async execute(ctx, args) {
      const argv = fillCommand(def, args as Record<string, string>);
      const { r, moved } = await runContained(ctx, argv, { timeoutMs: def.timeout * 1000, signal: ctx.signal, maxBuffer: 10 * 1024 * 1024, reapGroup: true });
      const text = [
        `exit_code=${r.exitCode ?? 'none'}${r.timedOut ? ` (killed after ${def.timeout}s)` : ''}`,
        `stdout:\n${r.stdout}`,
        ...(r.stderr ? [`stderr:\n${r.stderr}`] : []),
        ...movedNote(moved),
      ].join('\n');
      return { content: text, isError: r.exitCode !== 0, meta: { exit_code: r.exitCode ?? 'none' } };
    },
  }) as Tool;
}

export function loadCustomTools(dirs: string[], builtinNames: Set<string>): CustomToolLoad {
  const out: CustomToolLoad = { tools: [], errors: [] };
  const seen = new Map<string, Tool>();
  for (const dir of dirs) {
    for (const n of yamlFilesIn(dir)) {
      const file = path.join(dir, n);
      try {
        const parsed = DefSchema.safeParse(yaml().parse(readDefinitionSync(file, 'project')));
        if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; '));
        if (builtinNames.has(parsed.data.name)) throw new Error(`"${parsed.data.name}" is a built-in tool name`);
        seen.set(parsed.data.name, toTool(parsed.data, file)); // later directories (project) win
      } catch (err) {
        out.errors.push({ file, message: (err as Error).message });
      }
    }
  }
  out.tools = [...seen.values()];
  return out;
}
