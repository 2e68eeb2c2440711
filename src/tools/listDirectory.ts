import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';

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
    const entries = await fs.readdir(abs, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOTDIR') throw new ToolError(`${shown} is a file, not a directory; use read_file.`);
      if (err.code === 'ENOENT') throw new ToolError(`directory not found: ${shown}`);
      throw new ToolError(`cannot list ${shown}: ${err.code ?? err.message}`);
    });
    entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
    const lines: string[] = [];
    for (const e of entries) {
      if (ctx.readDenied?.(path.join(abs, e.name))) lines.push(`${e.name} [withheld: the policy denies reading it]`);
      else if (e.isDirectory()) lines.push(`${e.name}/ dir`);
      else if (e.isSymbolicLink()) {
        const target = await fs.readlink(path.join(abs, e.name)).catch(() => '?');
        lines.push(`${e.name} symlink -> ${target}`);
      } else {
        const st = await fs.stat(path.join(abs, e.name)).catch(() => null);
        lines.push(`${e.name} file ${st ? st.size : '?'} bytes`);
      }
    }
    return { content: lines.length ? lines.join('\n') : '(empty directory)', meta: { path: shown, entries: entries.length } };
  },
});
