// Agent Skills (the folder format Claude Code and Gemini CLI load): <skills>/<name>/SKILL.md with YAML
// front-matter (name, description) and a body, plus any files beside it. Found in .devx/skills,
// .claude/skills and .gemini/skills, in the home and in the project (the project's win by name, and load
// only once it is trusted: a skill's description goes into the system prompt), and installed extensions'
// (extensions/: a Claude Code plugin's as <plugin>:<skill>, as Claude Code names them; a Gemini CLI
// extension's under its own name, unless one of the person's own has it). Only names and descriptions are
// shown up front; the `skill` tool reads a body when the model asks for it.
import fs from 'node:fs';
import path from 'node:path';
import { splitFrontMatter } from './loadAgents.js';
import { readDefinitionSync } from '../util/readRegularFileSync.js';
import { loadExtensions } from '../extensions/loadExtensions.js';

export interface Skill {
  name: string;
  description: string;
  /** The skill's folder (real path) and its SKILL.md. */
  dir: string;
  file: string;
  scope: 'user' | 'project';
  /** The extension that brings it. */
  extension?: string;
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
          const skill = readSkill(file, n, scope);
          skills.set(skill.name, skill);
        } catch (err) {
          errors.push(issueOf(file, err));
        }
      }
    }
  }
  for (const b of loadExtensions(opts.devxHome, opts.root).bundles) {
    for (const dir of b.skills) {
      const file = path.join(dir, 'SKILL.md');
      try {
        const own = readSkill(file, path.basename(dir), 'user');
        const name = b.format === 'claude' ? `${b.name}:${own.name}` : own.name;
        const taken = skills.get(name);
        if (taken) throw new Error(`the skill "${name}" of ${taken.file} has its name, and wins`);
        skills.set(name, { ...own, name, extension: b.name });
      } catch (err) {
        errors.push(issueOf(file, err));
      }
    }
  }
  return { skills, errors, untrusted };
}

/** One SKILL.md, checked: its front-matter's name (or its folder's) and description. */
function readSkill(file: string, folder: string, scope: Skill['scope']): Skill {
  const fm = splitFrontMatter(readDefinitionSync(file, scope));
  if (!fm) throw new Error('missing YAML front-matter (--- name, description ---)');
  const name = typeof fm.data.name === 'string' ? fm.data.name : folder;
  if (!NAME.test(name)) throw new Error(`"name" must be letters, digits, - or _ (got ${JSON.stringify(name)})`);
  if (typeof fm.data.description !== 'string' || !fm.data.description.trim())
    throw new Error('"description" is required: it tells the model when to use the skill');
  return { name, description: fm.data.description.trim().replace(/\s+/g, ' '), dir: fs.realpathSync(path.dirname(file)), file, scope };
}

function issueOf(file: string, err: unknown): LoadedSkills['errors'][number] {
  return { file, ...((err as { line?: number }).line ? { line: (err as { line?: number }).line } : {}), message: (err as Error).message };
}
