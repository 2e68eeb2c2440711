import * as z from 'zod';
import { defineTool, ToolError, type EditorFs, type PlannedChange, type ToolContext } from './types.js';
import { boolArg, pathArg } from './argTypes.js';
import { displayPath, PathError } from '../sandbox/resolvePath.js';
import { readFileNoFollow } from '../sandbox/openNoFollow.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { findClosestLines } from './closestLines.js';
import { editableText, encodeText, encodingMeta, inFormOf } from './fileText.js';
import { unifiedDiff } from './diffPreview.js';
import { readOnlyReason, refuseReadOnly } from './prepareWrite.js';

interface EditArgs {
  path: string;
  old_text: string;
  new_text: string;
  replace_all?: boolean;
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The edit as it would land: the file's text and its replacement, or a ToolError the model can act on. */
async function planEdit(abs: string, root: string, args: EditArgs, editor?: EditorFs) {
  const shown = displayPath(root, abs);
  const buf = await readFileNoFollow(abs, shown).catch((err) => (err instanceof PathError ? Promise.reject(err) : null));
  if (!buf) throw new ToolError(`file not found: ${shown}. To create a new file use write_file.`);
  const disk = editableText(buf, shown);
  // The editor's buffer when it offers one (ACP): the edit applies to what the person sees. A file that is
  // not UTF-8 is edited on disk, byte for byte: an editor's text API would carry it as UTF-8.
  const fromEditor = disk.encoding === 'utf8' && editor?.read ? await editor.read(abs).catch(() => null) : null;
  const text = fromEditor ?? disk.text;
  const { replaced, count } = replaceText(text, args, shown);
  // The file keeps its line endings, BOM and final newline; its encoding is checked here, before anyone is asked.
  const updated = inFormOf(text, replaced);
  const bytes = encodeText(updated, disk.encoding, shown);
  return { abs, shown, text, updated, count, bytes, encoding: disk.encoding };
}

/** `text` with old_text replaced (matched in CRLF form in a CRLF file, and without the fence's newline at the file's end). */
function replaceText(text: string, args: EditArgs, shown: string): { replaced: string; count: number } {
  if (args.old_text === args.new_text) throw new ToolError('old_text and new_text are identical; nothing to change.');
  let oldText = args.old_text;
  let newText = args.new_text;
  let count = countOccurrences(text, oldText);
  // Files with CRLF endings: the protocol normalises the model's text to LF, so match in CRLF form.
  if (count === 0 && text.includes('\r\n') && oldText.includes('\n')) {
    const crlfOld = oldText.replace(/\r?\n/g, '\r\n');
    const n = countOccurrences(text, crlfOld);
    if (n > 0) {
      oldText = crlfOld;
      newText = newText.replace(/\r?\n/g, '\r\n');
      count = n;
    }
  }
  // A fenced old_text ends with a newline; the last line of a file may not.
  if (count === 0 && oldText.endsWith('\n') && text.endsWith(oldText.slice(0, -1))) {
    oldText = oldText.slice(0, -1);
    newText = newText.endsWith('\n') ? newText.slice(0, -1) : newText;
    count = countOccurrences(text, oldText);
  }
  if (count === 0) {
    const hint = findClosestLines(text, args.old_text);
    throw new ToolError(
      `old_text was not found in ${shown}.` +
        (hint
          ? ` The closest lines are ${hint.startLine}-${hint.endLine} (${Math.round(hint.score * 100)}% similar):\n${hint.text}\nCopy the exact text (including indentation) from the file, or read_file it again.`
          : ' Read the file again and copy the exact text, including indentation.'),
    );
  }
  if (count > 1 && !args.replace_all) {
    throw new ToolError(
      `found ${count} matches for old_text in ${shown}; add surrounding lines to old_text so it matches exactly once, or set replace_all=true.`,
    );
  }
  const replaced = args.replace_all ? text.split(oldText).join(newText) : text.replace(oldText, () => newText);
  return { replaced, count };
}

/** The change as it would land (the confirmation and the editor's diff show this). */
async function planEditChange(ctx: Pick<ToolContext, 'root' | 'resolve' | 'editorFs'>, args: EditArgs): Promise<PlannedChange> {
  const { abs, shown, text, updated } = await planEdit(ctx.resolve(args.path), ctx.root, args, ctx.editorFs);
  const refused = await readOnlyReason(abs);
  return { kind: 'edit', path: abs, shown, oldText: text, newText: updated, ...(refused ? { refused } : {}) };
}

export const editFileTool = defineTool({
  name: 'edit_file',
  needs: ['editorFs', 'resolve', 'root'],
  kind: 'write',
  descriptionFile: 'tools/edit_file.md',
  locations: (a) => [{ path: String(a.path), intent: 'write' }],
  describe: (a) => `edit ${a.path}`,
  aliases: ['Edit', 'MultiEdit', 'NotebookEdit'],
  example: 'TOOL_CALL: edit_file | path=src/main.ts | old_text=```\nconst x = 1;\n``` | new_text=```\nconst x = 2;\n```',
  schema: z.object({
    path: pathArg('file to edit, relative to the project root'),
    old_text: z.string().min(1, 'old_text must not be empty; to create a file use write_file').describe('exact text to replace'),
    new_text: z.string().describe('replacement text'),
    replace_all: boolArg('replace every occurrence instead of exactly one').optional(),
  }),
  plan: planEditChange,
  async preview(ctx, args, planned) {
    const p = planned ?? (await planEditChange(ctx, args));
    return `${p.refused ? `note: ${p.shown} is ${p.refused}; devx will refuse to write it\n` : ''}${unifiedDiff(p.shown, p.oldText ?? '', p.newText)}`;
  },
  async execute(ctx, args) {
    const { abs, shown, updated, count, bytes, encoding } = await planEdit(ctx.resolve(args.path), ctx.root, args, ctx.editorFs);
    await refuseReadOnly(abs, shown);
    if (ctx.editorFs?.write && encoding === 'utf8') await ctx.editorFs.write(abs, updated);
    else await writeFileAtomic(abs, bytes);
    return {
      content: `edited ${shown}: replaced ${args.replace_all ? count : 1} occurrence${count > 1 && args.replace_all ? 's' : ''}`,
      meta: { path: shown, ...encodingMeta(encoding) },
    };
  },
});
