// The `skill` tool: the model reads a skill's instructions (SKILL.md without its front-matter) and the
// files beside it when a task calls for it. Only files inside the skill's own folder, regular text files,
// never one the policy hides (secrets), and never through a link out of the folder.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError, type Tool } from './types.js';
import { looksBinary } from './fileText.js';
import { readOwnFileSync, UnreadableFileError } from '../util/readRegularFileSync.js';

export interface SkillRef {
  name: string;
  description: string;
  dir: string;
  file: string;
  /** A project's skill files must each be their own file (one link); a user's may be linked from dotfiles. */
  scope?: 'user' | 'project';
}

const MAX_BYTES = 512 * 1024;

function filesOf(dir: string, base = dir, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesOf(p, base, out);
    else if (e.isFile() && e.name !== 'SKILL.md') out.push(path.relative(base, p));
    if (out.length >= 200) break;
  }
  return out;
}

export function makeSkillTool(skills: SkillRef[]): Tool {
  const list = skills.map((s) => `- ${s.name}: ${s.description}`).join('\n');
  return defineTool({
    name: 'skill',
    needs: ['readDenied'],
    kind: 'read',
    descriptionFile: '',
    description: `Reads one of the user's skills: instructions (and files) for a kind of task. Call it when a task matches a skill's description, before you start; then follow what it says. Without file= it returns the skill's instructions and the list of its files; with file= one of those files.\n\nSkills here:\n${list}`,
    describe: (a) => `skill ${a.name}${a.file ? ` (${a.file})` : ''}`,
    aliases: ['Skill'],
    example: `TOOL_CALL: skill | name=${skills[0]?.name ?? 'pdf'}`,
    schema: z.object({
      name: z.string().min(1).describe('the skill, as listed'),
      file: z.string().min(1).optional().describe('a file of the skill, relative to its folder'),
    }),
    async execute(ctx, args) {
      const s = skills.find((k) => k.name === args.name);
      if (!s) throw new ToolError(`no skill named "${args.name}"; the skills are: ${skills.map((k) => k.name).join(', ')}`);
      const target = args.file ? path.resolve(s.dir, args.file) : s.file;
      let real: string;
      try {
        real = fs.realpathSync(target);
      } catch {
        throw new ToolError(`${args.file} is not a file of the skill ${s.name}; its files are: ${filesOf(s.dir).join(', ') || '(none)'}`);
      }
      if (real !== s.dir && !real.startsWith(`${s.dir}${path.sep}`))
        throw new ToolError(`${args.file} leads outside the skill's folder; only its own files can be read`);
      if (ctx.readDenied?.(real)) throw new ToolError(`${args.file} is a file devx does not read (the policy hides it)`);
      let buf: Buffer;
      try {
        buf = readOwnFileSync(real, { maxBytes: MAX_BYTES, shown: args.file ?? 'SKILL.md', links: s.scope === 'project' ? 'one' : 'any' });
      } catch (err) {
        throw new ToolError(err instanceof UnreadableFileError ? `${err.message}; skill files are read only as regular files` : (err as Error).message);
      }
      if (looksBinary(buf)) throw new ToolError(`${args.file} is a binary file; skill files are read as text`);
      const text = buf.toString('utf8');
      if (args.file) return { content: text, meta: { skill: s.name, file: args.file } };
      const body = text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*\r?\n?/, '').trim();
      const files = filesOf(s.dir);
      return { content: `${body}${files.length ? `\n\n[files of this skill (read with file=): ${files.join(', ')}]` : ''}`, meta: { skill: s.name } };
    },
  }) as Tool;
}
