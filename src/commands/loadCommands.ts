// Custom slash commands people already keep for Gemini CLI and Claude Code, and devx's own:
//   .gemini/commands/**/*.toml   description, prompt; {{args}}, !{shell}, @{file}; agent/start.toml is /agent:start
//   .claude/commands/**/*.md     front-matter (description, argument-hint); $ARGUMENTS, $0…, !`shell`, @file
//   .devx/commands/**/*.{toml,md}
// from the user's home and the project (a project's win by name, and load only once it is trusted), and those
// of installed extensions (extensions/): a Claude Code plugin's as /<plugin>:<command>, a Gemini CLI
// extension's under their own name, or /<extension>:<command> when the name is taken, as Gemini CLI does.
// A broken file is reported with its file and line and skipped; the rest load.
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { splitFrontMatter } from '../personas/loadAgents.js';
import { readDefinitionSync } from '../util/readRegularFileSync.js';
import { filesUnder } from '../util/filesUnder.js';
import { loadExtensions } from '../extensions/loadExtensions.js';

export interface CustomCommand {
  /** The name after the slash: folders become `:` (agent/start.toml is agent:start). */
  name: string;
  description: string;
  /** The prompt text with its placeholders, as written. */
  body: string;
  /** Which syntax the body uses for arguments and injections; 'mcp': an MCP server's prompt (the body is unused). */
  syntax: 'gemini' | 'claude' | 'mcp';
  /** For an MCP prompt: its server, name and arguments, in order. */
  mcp?: { server: string; prompt: string; args: { name: string; required: boolean }[] };
  argumentHint?: string;
  /** Claude Code's front-matter `arguments`: names for the words, `$name` in the text. */
  argumentNames?: string[];
  scope: 'user' | 'project' | 'mcp' | 'extension';
  /** The extension that brings it (scope 'extension'). */
  extension?: string;
  file: string;
}

export interface CommandIssue {
  file: string;
  line?: number;
  message: string;
}

export interface LoadedCommands {
  commands: Map<string, CustomCommand>;
  errors: CommandIssue[];
  /** Project command files not loaded because the project is not trusted. */
  untrusted: string[];
  /** An extension's command that runs under another name, or not at all, because its name is taken. */
  notes?: CommandIssue[];
}

const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function nameOf(dir: string, file: string): string | null {
  const parts = path
    .relative(dir, file)
    .replace(/\.(toml|md)$/, '')
    .split(path.sep);
  return parts.every((p) => NAME_PART.test(p)) ? parts.join(':') : null;
}

export function parseCommandFile(file: string, text: string): Omit<CustomCommand, 'name' | 'scope' | 'file'> {
  if (file.endsWith('.toml')) {
    let data: Record<string, unknown>;
    try {
      data = parseToml(text) as Record<string, unknown>;
    } catch (err) {
      const e = err as { line?: number; message: string };
      throw Object.assign(new Error(`not valid TOML: ${e.message.split('\n')[0]}`), { line: e.line });
    }
    if (typeof data.prompt !== 'string' || !data.prompt.trim()) throw new Error('"prompt" is required (a string)');
    if (data.description !== undefined && typeof data.description !== 'string') throw new Error('"description" must be a string');
    return { description: (data.description as string | undefined) ?? '', body: data.prompt, syntax: 'gemini' };
  }
  let fm: ReturnType<typeof splitFrontMatter>;
  try {
    fm = splitFrontMatter(text);
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { line: (err as { line?: number }).line });
  }
  // Kept as written (its final newline too): Claude Code fills the text as it is in the file.
  const body = fm ? fm.body : text;
  if (!body.trim()) throw new Error('the command has no text');
  const desc = fm?.data.description;
  const firstLine = body
    .trim()
    .split('\n')[0]
    .replace(/^#+\s*/, '')
    .slice(0, 80);
  const hint = fm?.data['argument-hint'];
  const names = argumentNamesOf(fm?.data.arguments);
  return {
    description: typeof desc === 'string' ? desc : firstLine,
    body,
    syntax: 'claude',
    ...(typeof hint === 'string' ? { argumentHint: hint } : {}),
    ...(names.length ? { argumentNames: names } : {}),
  };
}

/** Front-matter `arguments` as Claude Code reads it: a list, or words in a string; numbers are not names. */
function argumentNamesOf(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/\s+/) : [];
  return list.filter((x): x is string => typeof x === 'string' && x.trim() !== '' && !/^\d+$/.test(x));
}

export function loadCustomCommands(opts: { root: string; home: string; devxHome: string; trusted: boolean; importSetup?: boolean }): LoadedCommands {
  const commands = new Map<string, CustomCommand>();
  const errors: CommandIssue[] = [];
  const untrusted: string[] = [];
  const sources = (base: string, devx: string) => [
    ...(opts.importSetup === false
      ? []
      : [
          { dir: path.join(base, '.gemini', 'commands'), exts: ['.toml'] },
          { dir: path.join(base, '.claude', 'commands'), exts: ['.md'] },
        ]),
    { dir: path.join(devx, 'commands'), exts: ['.toml', '.md'] },
  ];
  for (const scope of ['user', 'project'] as const) {
    const list = scope === 'user' ? sources(opts.home, opts.devxHome) : sources(opts.root, path.join(opts.root, '.devx'));
    for (const { dir, exts } of list) {
      for (const file of filesUnder(dir, exts)) {
        if (scope === 'project' && !opts.trusted) {
          untrusted.push(path.relative(opts.root, file));
          continue;
        }
        const name = nameOf(dir, file);
        if (!name) {
          errors.push({ file, message: 'its name (the path under the commands folder) may hold only letters, digits, ".", "-" and "_"' });
          continue;
        }
        try {
          const parsed = parseCommandFile(file, readDefinitionSync(file, scope));
          commands.set(name, { name, scope, file, ...parsed });
        } catch (err) {
          errors.push({ file, ...((err as { line?: number }).line ? { line: (err as { line?: number }).line } : {}), message: (err as Error).message });
        }
      }
    }
  }
  const notes = addExtensionCommands(commands, errors, opts);
  return { commands, errors, untrusted, notes };
}

/** Installed extensions' commands, under the names their own tool gives them; a name already taken is settled as Gemini CLI settles it. */
function addExtensionCommands(commands: Map<string, CustomCommand>, errors: CommandIssue[], opts: { root: string; devxHome: string }): CommandIssue[] {
  const notes: CommandIssue[] = [];
  for (const b of loadExtensions(opts.devxHome, opts.root).bundles) {
    for (const c of b.commands) {
      let parsed: ReturnType<typeof parseCommandFile>;
      try {
        parsed = parseCommandFile(c.file, readDefinitionSync(c.file, 'user'));
      } catch (err) {
        errors.push({ file: c.file, ...((err as { line?: number }).line ? { line: (err as { line?: number }).line } : {}), message: (err as Error).message });
        continue;
      }
      const taken = commands.get(c.name);
      const name = taken && b.format === 'gemini' ? `${b.name}:${c.name}` : c.name;
      if (commands.has(name)) {
        notes.push({ file: c.file, message: `/${name} (extension ${b.name}) is not loaded: ${commands.get(name)!.file} has that name, which wins` });
        continue;
      }
      if (taken) notes.push({ file: c.file, message: `/${c.name} of extension ${b.name} runs as /${name}: ${taken.file} has the name /${c.name}` });
      commands.set(name, { name, scope: 'extension', extension: b.name, file: c.file, ...parsed });
    }
  }
  return notes;
}
