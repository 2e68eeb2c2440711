// Agent Skills (the folder format Claude Code and Gemini CLI load): <skills>/<name>/SKILL.md with YAML
// front-matter (name, description) and a body, plus any files beside it. Found in .devx/skills,
// .claude/skills and .gemini/skills, in the home and in the project (the project's win by name, and load
// only once it is trusted: a skill's description goes into the system prompt). Only names and
// descriptions are shown up front; the `skill` tool reads a body when the model asks for it.
import fs from 'node:fs';
import path from 'node:path';
import { splitFrontMatter } from './loadAgents.js';
import { readDefinitionSync } from '../util/readRegularFileSync.js';

export interface Skill {
  name: string;
  description: string;
  /** The skill's folder (real path) and its SKILL.md. */
  dir: string;
  file: string;
  scope: 'user' | 'project';
}

export interface LoadedSkills {
  skills: Map<string, Skill>;
  errors: { file: string; line?: number; message: string }[];
  untrusted: string[];
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

export function loadSkills(opts: { root: string; home: string; devxHome: string; trusted: boolean; importSetup?: boolean }): LoadedSkills {
  const skills = new Map<string, Skill>();
  const errors: LoadedSkills['errors'] = [];
  const untrusted: string[] = [];
  const roots = (base: string, devx: string) => [
    path.join(devx, 'skills'),
    ...(opts.importSetup === false ? [] : [path.join(base, '.claude', 'skills'), path.join(base, '.gemini', 'skills')]),
  ];
  for (const scope of ['user', 'project'] as const) {
    for (const dir of scope === 'user' ? roots(opts.home, opts.devxHome) : roots(opts.root, path.join(opts.root, '.devx'))) {
      let names: string[];
      try {
        names = fs.readdirSync(dir).sort();
      } catch {
        continue;
      }
      for (const n of names) {
        const file = path.join(dir, n, 'SKILL.md');
        if (!fs.existsSync(file)) continue;
        if (scope === 'project' && !opts.trusted) {
          untrusted.push(path.relative(opts.root, file));
          continue;
        }
        try {
          const fm = splitFrontMatter(readDefinitionSync(file, scope));
          if (!fm) throw new Error('missing YAML front-matter (--- name, description ---)');
          const name = typeof fm.data.name === 'string' ? fm.data.name : n;
          if (!NAME.test(name)) throw new Error(`"name" must be letters, digits, - or _ (got ${JSON.stringify(name)})`);
          if (typeof fm.data.description !== 'string' || !fm.data.description.trim())
            throw new Error('"description" is required: it tells the model when to use the skill');
          skills.set(name, { name, description: fm.data.description.trim().replace(/\s+/g, ' '), dir: fs.realpathSync(path.dirname(file)), file, scope });
        } catch (err) {
          errors.push({ file, ...((err as { line?: number }).line ? { line: (err as { line?: number }).line } : {}), message: (err as Error).message });
        }
      }
    }
  }
  return { skills, errors, untrusted };
}
