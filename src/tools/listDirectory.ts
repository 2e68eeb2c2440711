import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { withDirOpen } from '../util/guardedPath.js';

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  needs: ['readDenied', 'resolve', 'root'],
  kind: 'read',
  descriptionFile: 'tools/list_directory.md',
  locations: (a) => [{ path: String(a.path ?? '.'), intent: 'list' }],
  describe: (a) => `list ${a.path ?? '.'}`,
  aliases: ['LS'],
  limits: { maxLines: 1000 },
  example: 'TOOL_CALL: list_directory | path=src',
  schema: z.object({ path: pathArg('directory to list, relative to the project root ("." for the root)') }),
  async execute(ctx, args) {
    const abs = ctx.resolve(args.path);
    const shown = displayPath(ctx.root, abs);
    // The folder opened without following a link on the way (util/guardedPath.ts), and its entries read from it.
    let lines: string[];
    try {
      lines = withDirOpen(abs, (here) => listed(here, abs, ctx.readDenied));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new ToolError(`${shown} is a file, not a directory; use read_file.`);
      if (code === 'ENOENT') throw new ToolError(`directory not found: ${shown}`);
      if (code === 'ELOOP') throw new ToolError(`${shown} is reached through a symbolic link; list the folder it leads to instead.`);
      throw new ToolError(`cannot list ${shown}: ${code ?? (err as Error).message}`);
    }
    return { content: lines.length ? lines.join('\n') : '(empty directory)', meta: { path: shown, entries: lines.length } };
  },
});

/** One line per entry of the folder open at `here` (which is `abs`): denied names withheld, sizes of files. */
function listed(here: string, abs: string, readDenied?: (p: string) => boolean): string[] {
  const entries = fs.readdirSync(here, { withFileTypes: true });
  entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
  return entries.map((e) => {
    if (readDenied?.(path.join(abs, e.name))) return `${e.name} [withheld: the policy denies reading it]`;
    if (e.isDirectory()) return `${e.name}/ dir`;
    const at = path.join(here, e.name);
    if (e.isSymbolicLink()) return `${e.name} symlink -> ${attempt(() => fs.readlinkSync(at)) ?? '?'}`;
    return `${e.name} file ${attempt(() => fs.statSync(at).size) ?? '?'} bytes`;
  });
}

function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
