// `devx memory add|search|list|delete|import`, each with --json: the knowledge store from the shell
// (and for Claude Code, which can query and store through it).
import fs from 'node:fs';
import path from 'node:path';
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { loadEffectiveSettings } from '../../config/effectiveSettings.js';
import { openStore } from '../../knowledge/openStore.js';
import { chunkMarkdown } from '../../knowledge/chunkMarkdown.js';
import { KnowledgeError, type KnowledgeDoc, type KnowledgeFilter } from '../../knowledge/types.js';
import { UsageError } from '../shared.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';
import { READ_LIMITS, readTextOrNull } from '../../util/readRegularFileSync.js';

const SUBCOMMANDS = subcommandTable(`
add | memory add "<content>" [--type T] [--tags a,b] [--project P] [--agent A] [--json] | store a note
search | memory search "<query>" [--limit N] [--type T] [--tags a,b] [--project P] [--agent A] [--json] | find notes by meaning and words
list | memory list [--limit N] [--type T] [--tags a,b] [--project P] [--agent A] [--json] | the newest notes
delete | memory delete <id>... [--json] | remove notes by id
import | memory import <dir> [--type T] [--tags a,b] [--project P] [--agent A] [--json] | store every Markdown file under a folder, chunked by heading
`);
const USAGE = `usage:\n${SUBCOMMANDS.map((s) => `  devx ${s.usage}`).join('\n')}`;

function listMarkdown(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.(md|markdown|mdx)$/i.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export const memoryCommand = defineCommand({
  name: 'memory',
  summary: 'the knowledge store: add, search, list, delete, import',
  usage: SUBCOMMANDS.map((s) => s.usage),
  flags: flagTable(`
      --json               machine-readable output
      --type <T>           entry type (note, research, decision, ...)
      --tags <a,b>         comma-separated tags
      --project <P>        project name (default: this project)
      --agent <A>          who wrote it (default: user)
      --limit <N>          how many results (default 10)
      --collection <name>  the collection (default: settings, else devx)
`),
  subcommands: SUBCOMMANDS,
  async run({ values: raw, positionals }) {
    const values = raw as { json?: boolean; type?: string; tags?: string; project?: string; agent?: string; limit?: string; collection?: string };
    const [sub, ...rest] = positionals;
    if (!sub) {
      process.stdout.write(`${USAGE}\n`);
      return 2;
    }
    const { root, home, settings } = loadEffectiveSettings({ cwd: process.cwd(), env: process.env });
    const store = openStore({
      env: process.env,
      devxHome: home,
      collection: values.collection ?? settings.knowledge.collection,
      embeddings: settings.knowledge.embeddings,
      cwd: root,
    });
    const tags = (values.tags ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const filter: KnowledgeFilter = { agent: values.agent, project: values.project, type: values.type, tags };
    const limit = values.limit ? Number(values.limit) : 10;
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit takes a positive whole number');
    const meta = (extra: { source?: string } = {}) => ({
      agent: values.agent ?? 'user',
      timestamp: new Date().toISOString(),
      project: values.project ?? path.basename(root),
      type: values.type ?? 'note',
      tags,
      ...extra,
    });
    // Notes are anyone's text (a model's remember calls, imported files): shown, never obeyed.
    const out = (json: unknown, text: string) => process.stdout.write(values.json ? `${printableJson(json, 2)}\n` : `${escapeControls(text)}\n`);
    const showDoc = (d: KnowledgeDoc & { score?: number }) =>
      `[${d.id}]${d.score !== undefined ? ` score=${d.score.toFixed(3)}` : ''} ${d.metadata.agent}/${d.metadata.type} ${d.metadata.project} ${d.metadata.tags.join(',')} ${d.metadata.timestamp}\n  ${d.content.replace(/\s+/g, ' ').slice(0, 200)}`;
    try {
      switch (sub) {
        case 'add': {
          if (rest.length !== 1) throw new UsageError(USAGE);
          const [id] = await store.add([{ content: rest[0], metadata: meta() }]);
          out({ id, backend: store.backend }, `stored ${id} (${store.backend}: ${store.location})`);
          return 0;
        }
        case 'search': {
          if (rest.length !== 1) throw new UsageError(USAGE);
          const hits = await store.search(rest[0], { filter, limit });
          out(hits, hits.length ? hits.map(showDoc).join('\n') : 'no matches');
          return 0;
        }
        case 'list': {
          const docs = await store.list({ filter, limit });
          out(docs, docs.length ? docs.map(showDoc).join('\n') : `the store is empty (${store.location})`);
          return 0;
        }
        case 'delete': {
          if (!rest.length) throw new UsageError(USAGE);
          const n = await store.delete(rest);
          out({ deleted: n }, `deleted ${n} of ${rest.length}`);
          return n === rest.length ? 0 : 1;
        }
        case 'import': {
          if (rest.length !== 1) throw new UsageError(USAGE);
          const dir = path.resolve(rest[0]);
          if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`${rest[0]} is not a directory`);
          const files = listMarkdown(dir);
          const docs = files.flatMap((f) =>
            chunkMarkdown(readTextOrNull(f, READ_LIMITS.note, 'any') ?? '').map((c) => ({
              content: c.content,
              metadata: meta({ source: `${path.relative(dir, f)}${c.heading ? `#${c.heading}` : ''}` }),
            })),
          );
          const started = Date.now();
          const tty = process.stderr.isTTY;
          let last = 0;
          const ids = await store.add(docs, (done) => {
            if (Date.now() - last < 200 && done < docs.length) return;
            last = Date.now();
            process.stderr.write(`${tty ? '\r' : ''}importing: ${done}/${docs.length} chunks${tty ? '' : '\n'}`);
          });
          if (tty) process.stderr.write('\n');
          const secs = (Date.now() - started) / 1000;
          out(
            { files: files.length, chunks: ids.length, seconds: secs },
            `imported ${files.length} files as ${ids.length} chunks in ${secs.toFixed(1)}s (${store.backend}: ${store.location})`,
          );
          return 0;
        }
        default:
          throw new UsageError(USAGE);
      }
    } catch (err) {
      if (err instanceof KnowledgeError) {
        process.stderr.write(`devx: knowledge store: ${escapeControls(err.message)}\n`);
        return 1;
      }
      throw err;
    }
  },
});
