// Which queue a project uses: DEVX_QUEUE_URL, else settings' "queue" (a project's own only once
// trusted: it would send the user's tasks to, or take tasks from, a database of the repository's choosing),
// else the file queue. An invalid value stops devx with the key, never echoing a URL.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeHome, makeProject } from '../helpers/env.js';
import { resolveQueueUrl, openQueue } from '../../src/queue/openQueue.js';
import { setTrusted } from '../../src/config/trust.js';

const URL_A = 'postgres://devx:s3cret@db.example:5432/q';

function setup(project: Record<string, unknown> | null, user: Record<string, unknown> | null) {
  const root = makeProject(project ? { '.devx/settings.json': JSON.stringify(project) } : {}, { git: false });
  const home = makeHome();
  if (user) {
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(user));
  }
  return { root, env: { HOME: home, PATH: process.env.PATH } as NodeJS.ProcessEnv };
}

describe('choosing the queue', () => {
  it('the file queue by default; the user file names a database; DEVX_QUEUE_URL wins', () => {
    expect(resolveQueueUrl(setup(null, null).root, setup(null, null).env)).toEqual({ url: 'file', warnings: [] });
    const u = setup(null, { queue: URL_A });
    expect(resolveQueueUrl(u.root, u.env).url).toBe(URL_A);
    expect(resolveQueueUrl(u.root, { ...u.env, DEVX_QUEUE_URL: 'file' }).url).toBe('file');
  });

  it("a project's own queue URL is ignored, with a warning, until the project is trusted", () => {
    const p = setup({ queue: URL_A }, null);
    const r = resolveQueueUrl(p.root, p.env);
    expect(r.url).toBe('file');
    expect(r.warnings[0]).toMatch(/"queue" names a database for the task queue and is ignored until you trust the project/);
    expect(r.warnings[0]).not.toContain('s3cret');
    setTrusted(path.join(p.env.HOME!, '.devx'), p.root, true);
    expect(resolveQueueUrl(p.root, p.env)).toEqual({ url: URL_A, warnings: [] });
  });

  it('an invalid value is refused without echoing it; an unknown scheme from the environment too', async () => {
    const bad = setup(null, { queue: 'mysql://u:pw@h/db' });
    expect(() => resolveQueueUrl(bad.root, bad.env)).toThrow(/invalid setting "queue": must be "file" or a postgres:\/\/ URL/);
    await expect(openQueue(bad.root, 'mysql://u:pw@h/db')).rejects.toThrow('"queue" must be "file" or a postgres:// URL, not "mysql://u:***@h/db"');
  });
});
