// A throwaway PostgreSQL server for the Postgres task queue's tests: finds initdb and pg_ctl (PATH,
// then /usr/lib/postgresql/<version>/bin), creates a cluster in a temp folder, starts it on a free
// loopback port (its unix socket in the same folder) with password authentication over TCP, and stops
// and removes it after. As root, the cluster belongs to the `postgres` user (else `nobody`) and its
// programs run as that user (`runuser -u`), since PostgreSQL refuses to run as root. `ssl: true` makes a
// CA and a server certificate for 127.0.0.1 (openssl) and turns TLS on. No binaries: findPostgres() is null
// and tests skip, saying why.
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

export const PG_USER = 'devx';
export const PG_PASSWORD = 'pw-Secr3t+/x';

export interface PgBins {
  initdb: string;
  pgCtl: string;
}

function onPath(name: string): string | null {
  for (const d of (process.env.PATH ?? '').split(':')) {
    const f = path.join(d, name);
    if (d && fs.existsSync(f)) return f;
  }
  return null;
}

/** initdb and pg_ctl, or null when this machine has no PostgreSQL server binaries. */
export function findPostgres(): PgBins | null {
  // .ci/run's first pass stands for a machine with only Node: PostgreSQL is hidden there, as rg and bwrap are.
  if (process.env.DEVX_TEST_POSTGRES === 'off') return null;
  const initdb = onPath('initdb');
  const pgCtl = onPath('pg_ctl');
  if (initdb && pgCtl) return { initdb, pgCtl };
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = path.join(base, v, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'pg_ctl')))
      return { initdb: path.join(bin, 'initdb'), pgCtl: path.join(bin, 'pg_ctl') };
  }
  return null;
}

/** runuser, on PATH or where Debian keeps it (a PATH without sbin still finds it). */
function runuserBin(): string | null {
  return onPath('runuser') ?? ['/usr/sbin/runuser', '/sbin/runuser'].find((f) => fs.existsSync(f)) ?? null;
}

/** Why the Postgres tests skip on this machine, or null when they run. */
export function whyNoPostgres(): string | null {
  if (process.env.DEVX_TEST_POSTGRES === 'off') return 'PostgreSQL is hidden for this run (DEVX_TEST_POSTGRES=off: a machine with only Node)';
  if (!findPostgres()) return 'no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin: install postgresql';
  if (process.getuid?.() === 0 && !runuserBin()) return 'running as root without runuser, and PostgreSQL refuses to run as root';
  return null;
}

/** Who runs the server: this user, or (as root) `postgres` else `nobody`. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (r.status === 0) return { name, uid: Number(r.stdout.trim()), gid: Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim()) };
  }
  throw new Error('running as root and there is neither a postgres nor a nobody user to run PostgreSQL as');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export class PgCluster {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bins: PgBins,
    private readonly user: ReturnType<typeof serverUser>,
  ) {}

  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** A URL for `db` (the password in it unless told otherwise; `params` as the query string). */
  url(db = 'postgres', params = '', user = PG_USER, password = PG_PASSWORD): string {
    return `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${this.port}/${db}${params ? `?${params}` : ''}`;
  }

  private run(file: string, args: string[]): string {
    const [f, a] = this.user ? [runuserBin()!, ['-u', this.user.name, '--', file, ...args]] : [file, args];
    return execFileSync(f, a, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  }

  static async start(opts: { ssl?: boolean } = {}): Promise<PgCluster> {
    const bins = findPostgres();
    if (!bins) throw new Error(whyNoPostgres()!);
    const user = serverUser();
    // Under the system's temp folder (world-traversable), not the test run's (which may be 0700 root).
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-pg-')));
    if (user) fs.chownSync(dir, user.uid, user.gid);
    fs.chmodSync(dir, 0o700);
    const c = new PgCluster(dir, await freePort(), bins, user);
    const pwfile = path.join(dir, 'pw');
    fs.writeFileSync(pwfile, `${PG_PASSWORD}\n`);
    if (user) fs.chownSync(pwfile, user.uid, user.gid);
    c.run(bins.initdb, ['-D', c.dataDir, '-U', PG_USER, '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']);
    const conf = [
      `port = ${c.port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'max_connections = 200',
    ];
    if (opts.ssl) {
      c.makeCertificates();
      conf.push('ssl = on', `ssl_cert_file = '${dir}/server.crt'`, `ssl_key_file = '${dir}/server.key'`);
      // TCP only with TLS: a plain connection is refused.
      fs.writeFileSync(
        path.join(c.dataDir, 'pg_hba.conf'),
        'local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\nhostnossl all all 127.0.0.1/32 reject\n',
      );
    }
    fs.appendFileSync(path.join(c.dataDir, 'postgresql.conf'), `\n${conf.join('\n')}\n`);
    c.pgCtl(['start']);
    return c;
  }

  private makeCertificates(): void {
    const d = this.dir;
    const ossl = (args: string[]) => execFileSync('openssl', args, { cwd: d, stdio: 'ignore' });
    ossl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=devx test CA', '-keyout', 'ca.key', '-out', 'ca.crt']);
    ossl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'server.key', '-out', 'server.csr']);
    fs.writeFileSync(path.join(d, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ossl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'server.crt',
    ]);
    fs.chmodSync(path.join(d, 'server.key'), 0o600);
    fs.chmodSync(path.join(d, 'ca.crt'), 0o644);
    if (this.user) for (const f of ['server.key', 'server.crt']) fs.chownSync(path.join(d, f), this.user.uid, this.user.gid);
  }

  /** The CA that signed the server's certificate (ssl: true). */
  get caFile(): string {
    return path.join(this.dir, 'ca.crt');
  }

  private pgCtl(args: string[]): void {
    this.run(this.bins.pgCtl, ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '60', ...args]);
  }

  /** A fast restart: sessions are ended, the server is away for a moment (the caller's event loop keeps running). */
  async restart(): Promise<void> {
    const args = ['-D', this.dataDir, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '60', '-m', 'fast', 'restart'];
    const [f, a] = this.user ? [runuserBin()!, ['-u', this.user.name, '--', this.bins.pgCtl, ...args]] : [this.bins.pgCtl, args];
    await promisify(execFile)(f, a, { timeout: 60_000 });
  }

  /** SQL as the superuser over the unix socket (psql is not needed: the pg driver is). */
  async sql(text: string, db = 'postgres'): Promise<unknown[]> {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ host: this.dir, port: this.port, user: PG_USER, database: db });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  }

  /** A new empty database; returns its URL. */
  async createDatabase(name: string, params = ''): Promise<string> {
    await this.sql(`CREATE DATABASE ${name}`);
    return this.url(name, params);
  }

  stop(): void {
    try {
      this.pgCtl(['-m', 'immediate', 'stop']);
    } catch {
      /* already stopped */
    }
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
