// `devx queue migrate|status`: the task queue's own database. The file queue needs neither; a
// Postgres queue ("queue": "postgres://…" in settings, or DEVX_QUEUE_URL) is migrated once, by a role
// that may create tables, before runners use it.
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { isPostgresUrl, postgresAdmin, resolveQueueUrl } from '../../queue/openQueue.js';
import { packageVersion } from '../../util/packageRoot.js';
import { escapeControls } from '../../util/terminalText.js';

const SUBCOMMANDS = subcommandTable(`
migrate | queue migrate | create or upgrade the Postgres queue's tables (recorded in devx_schema_version)
status | queue status [--json] | which queue is in use, its schema version and its tasks by status
`);

export const queueCommand = defineCommand({
  name: 'queue',
  summary: "the task queue's backend: migrate a Postgres queue's schema, or show which queue is in use",
  usage: SUBCOMMANDS.map((c) => c.usage),
  flags: flagTable('    --json  status: machine-readable output'),
  subcommands: SUBCOMMANDS,
  async run({ values, positionals }) {
    const [sub] = positionals;
    if (sub !== 'migrate' && sub !== 'status') throw new UsageError(`usage:\n${SUBCOMMANDS.map((c) => `  devx ${c.usage}`).join('\n')}`);
    const { url, warnings } = resolveQueueUrl(process.cwd(), process.env);
    for (const w of warnings) process.stderr.write(`devx: warning: ${escapeControls(w)}\n`);
    if (!isPostgresUrl(url)) {
      if (sub === 'migrate') process.stdout.write('The task queue is the file queue (.devx/agents/): nothing to migrate.\n');
      else process.stdout.write(values.json ? `${JSON.stringify({ kind: 'file' })}\n` : 'The task queue is the file queue (.devx/agents/).\n');
      return EXIT.ok;
    }
    const admin = await postgresAdmin();
    try {
      if (sub === 'migrate') {
        const r = await admin.migrateDatabase(url, packageVersion());
        process.stdout.write(
          r.applied.length
            ? `Migrated the queue database ${r.where} from schema version ${r.from} to ${r.applied[r.applied.length - 1]}.\n`
            : `The queue database ${r.where} is already at schema version ${r.from}.\n`,
        );
        return EXIT.ok;
      }
      const s = await admin.inspectDatabase(url);
      if (values.json) process.stdout.write(`${JSON.stringify({ kind: 'postgres', ...s, expected: admin.SCHEMA_VERSION })}\n`);
      else
        process.stdout.write(
          `The task queue is in PostgreSQL: ${s.where}${s.ssl ? ' (TLS)' : ''}\nSchema version: ${s.version ?? 'none (run devx queue migrate)'}; this devx needs ${admin.SCHEMA_VERSION}\nTasks: ${
            Object.entries(s.counts)
              .map(([k, n]) => `${n} ${k}`)
              .join(', ') || 'none'
          }\n`,
        );
      return s.version === admin.SCHEMA_VERSION ? EXIT.ok : EXIT.queueSchema;
    } catch (err) {
      // The database server's words: shown, never obeyed.
      process.stderr.write(`devx: ${escapeControls((err as Error).message)}\n`);
      return (err as Error).name === 'SchemaError' ? EXIT.queueSchema : EXIT.failed;
    }
  },
});
