// Which queue a project uses: DEVX_QUEUE_URL, else settings' "queue", else the file queue in
// .devx/agents/. A postgres:// (or postgresql://) URL opens the Postgres queue, whose module (and the
// `pg` package) loads only then: a devx on the file queue never loads either.
import { FileBackend } from './fileBackend.js';
import type { QueueBackend } from './queueBackend.js';
import { loadEffectiveSettings } from '../config/effectiveSettings.js';

export type { QueueBackend };

/** The queue URL in force ('file' for the file queue), and why a project's own was not used. */
export function resolveQueueUrl(cwd: string, env: NodeJS.ProcessEnv): { url: string; warnings: string[] } {
  const fromEnv = env.DEVX_QUEUE_URL?.trim();
  if (fromEnv) return { url: fromEnv, warnings: [] };
  const { settings } = loadEffectiveSettings({ cwd, env });
  return { url: settings.queue ?? 'file', warnings: settings.warnings.filter((w) => w.includes('"queue"')) };
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openQueue(root: string, url: string): Promise<QueueBackend> {
  if (url === 'file') return new FileBackend(root);
  if (isPostgresUrl(url)) return (await import('./postgres/pgQueue.js')).PgQueue.open(root, url);
  throw new Error(`"queue" must be "file" or a postgres:// URL, not ${JSON.stringify(url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@'))}`);
}

/** The Postgres queue's administration (`devx queue`), loaded on use. */
export async function postgresAdmin(): Promise<typeof import('./postgres/pgAdmin.js')> {
  return import('./postgres/pgAdmin.js');
}
