import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { guardedGlobFs } from '../util/guardedPath.js';

const DEFAULT_IGNORES = ['**/node_modules/**', '**/.git/**'];

export const globTool = defineTool({
  name: 'glob',
  needs: ['readDenied', 'resolve', 'root'],
  kind: 'read',
  descriptionFile: 'tools/glob.md',
  locations: (a) => [{ path: String(a.path ?? '.'), intent: 'list' }],
  describe: (a) => `glob ${a.pattern}${a.path ? ` in ${a.path}` : ''}`,
  aliases: ['Glob'],
  limits: { maxLines: 500 },
  example: 'TOOL_CALL: glob | pattern=src/**/*.ts',
  schema: z.object({
    pattern: z.string().min(1).describe('glob pattern, e.g. **/*.ts'),
    path: pathArg('directory to search from (default: the project root)').optional(),
  }),
  async execute(ctx, args) {
    if (args.pattern.startsWith('/') || args.pattern.split('/').includes('..')) {
      throw new ToolError('pattern must be relative and must not contain ".."; use path= to choose the directory.');
    }
    const base = ctx.resolve(args.path ?? '.');
    const found = await (
      await import('fast-glob')
    ).default(args.pattern, {
      cwd: base,
      dot: true,
      onlyFiles: false,
      markDirectories: true,
      followSymbolicLinks: false,
      ignore: DEFAULT_IGNORES,
      suppressErrors: true,
      // Folders entered without following a link, so a folder swapped for a link meanwhile lists nothing of where it leads.
      fs: guardedGlobFs as never,
    });
    found.sort();
    const shown = found.filter((f) => !ctx.readDenied?.(path.join(base, f)));
    const note = shown.length < found.length ? `\n[${found.length - shown.length} match(es) withheld: the policy denies reading them]` : '';
    return {
      content: (shown.length ? shown.join('\n') : `no files match ${args.pattern}`) + note,
      meta: { pattern: args.pattern, path: displayPath(ctx.root, base), matches: found.length },
    };
  },
});
