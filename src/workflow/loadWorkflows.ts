// Workflow definitions from three places, project over user over the ones devx ships:
//   prompts/workflows/*.yaml (devx)   ~/.devx/workflows/*.yaml (user)   .devx/workflows/*.yaml (project)
// A project definition's `allow` rules and loosened approvals run programs without asking, so they
// apply only once the user trusted the project (`devx trust`), like the project's settings; until then a
// project definition cannot replace one of the same name that devx ships or the user wrote.
import path from 'node:path';
import { packageRoot } from '../util/packageRoot.js';
import { yamlFilesIn } from '../util/yamlFiles.js';
import { loadAgents, type LoadedAgents } from '../personas/loadAgents.js';
import { parseWorkflow, WorkflowDefinitionError, type WorkflowDef } from './definition.js';
import { readDefinitionSync } from '../util/readRegularFileSync.js';

export interface LoadedWorkflows {
  workflows: Map<string, WorkflowDef>;
  errors: { file: string; message: string }[];
  warnings: string[];
  agents: LoadedAgents;
}

export interface WorkflowSources {
  root: string;
  userHome: string;
  devxHome: string;
  trusted: boolean;
}

export function loadWorkflows(src: WorkflowSources): LoadedWorkflows {
  const agents = loadAgents(src.root, src.userHome, src.devxHome);
  const out: LoadedWorkflows = { workflows: new Map(), errors: [], warnings: [], agents };
  const dirs: [string, WorkflowDef['scope']][] = [
    [path.join(packageRoot(), 'prompts', 'workflows'), 'builtin'],
    [path.join(src.devxHome, 'workflows'), 'user'],
    [path.join(src.root, '.devx', 'workflows'), 'project'],
  ];
  for (const [dir, scope] of dirs) {
    for (const n of yamlFilesIn(dir)) {
      const file = path.join(dir, n);
      try {
        const def = parseWorkflow(readDefinitionSync(file, scope), file, scope, (role) => agents.agents.has(role));
        const prev = out.workflows.get(def.name);
        if (scope === 'project' && !src.trusted) {
          // Running `dev-pipeline` must not run the repository's own one unawares: it replaces yours or devx's only once trusted.
          if (prev) {
            out.warnings.push(
              `${file}: the project's workflow "${def.name}" would replace the ${prev.scope === 'builtin' ? 'one devx ships' : 'one of yours'}; ignored until you trust the project with \`devx trust\``,
            );
            continue;
          }
          untrust(def, out.warnings);
        }
        out.workflows.set(def.name, def);
      } catch (err) {
        out.errors.push({ file, message: err instanceof WorkflowDefinitionError ? err.message : `${file}: ${(err as Error).message}` });
      }
    }
  }
  return out;
}

function untrust(def: WorkflowDef, warnings: string[]): void {
  for (const [name, s] of Object.entries(def.steps)) {
    if (s.allow.length) warnings.push(`${def.file}: step ${name} allows ${s.allow.join(', ')}; ignored until you trust the project with \`devx trust\``);
    if (s.approval === 'yolo' || s.approval === 'auto-edit')
      warnings.push(`${def.file}: step ${name} sets approval "${s.approval}"; ignored until you trust the project with \`devx trust\``);
    s.allow = [];
    if (s.approval === 'yolo' || s.approval === 'auto-edit') s.approval = undefined;
  }
}

/** The definition of that name, or an error naming its broken file or the known names. */
export function findWorkflow(loaded: LoadedWorkflows, name: string): WorkflowDef {
  const broken = loaded.errors.filter((e) => path.basename(e.file).replace(/\.ya?ml$/, '') === name);
  const def = loaded.workflows.get(name);
  if (def) return def;
  if (broken.length) throw new WorkflowDefinitionError(broken.map((e) => e.message).join('\n'));
  throw new WorkflowDefinitionError(`no workflow named "${name}"; known: ${[...loaded.workflows.keys()].join(', ') || '(none)'} (devx workflow list)`);
}
