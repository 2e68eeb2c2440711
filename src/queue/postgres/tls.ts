// TLS for the queue's database as libpq documents `sslmode` (node-postgres 8 reads `prefer`, `require` and
// `verify-ca` as `verify-full`, and prints a warning saying so): the URL's ssl parameters are taken off and
// handed to node-postgres as its `ssl` option, so it neither warns nor reinterprets them.
//   disable      plain
//   allow        plain; encrypted (unverified) if the server refuses plain
//   prefer       encrypted, unverified; plain if the server has no TLS (libpq's default: no sslmode given)
//   require      encrypted, unverified; with sslrootcert, the certificate is checked as verify-ca
//   verify-ca    encrypted, the certificate signed by sslrootcert's CA (or one Node knows)
//   verify-full  verify-ca, and the certificate names the host
//   no-verify    node-postgres's own spelling of require, kept
import fs from 'node:fs';

/** node-postgres's `ssl` option: false for plain, else the TLS options. */
export type TlsOption = false | { rejectUnauthorized: boolean; ca?: string; cert?: string; key?: string; checkServerIdentity?: () => undefined };

export interface TlsPlan {
  /** The URL without its ssl parameters. */
  connectionString: string;
  sslmode: string;
  first: TlsOption;
  /** What to try when the first connection fails as `retryWhen` says (prefer, allow). */
  fallback?: TlsOption;
  retryWhen: (err: unknown) => boolean;
}

const SSL_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslcrl', 'sslcompression', 'sslnegotiation', 'uselibpqcompat', 'ssl'];
const MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** A file the URL names (a CA, a client certificate or key), read now so a wrong path is said at once. */
function readParam(u: URL, key: string): string | undefined {
  const file = u.searchParams.get(key);
  if (!file) return undefined;
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`the queue URL's ${key} names ${file}, which devx cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** The server said it has no TLS (prefer falls back to plain). */
const noTls = (err: unknown) => /does not support SSL/i.test((err as Error)?.message ?? '');
/** The server refused a plain connection (allow tries TLS). */
const needsTls = (err: unknown) => /no encryption|SSL (is )?required|pg_hba\.conf rejects/i.test((err as Error)?.message ?? '');

/** What node-postgres is given for the URL's sslmode; throws for a mode libpq does not have. */
export function tlsPlan(url: string): TlsPlan {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { connectionString: url, sslmode: 'disable', first: false, retryWhen: () => false };
  }
  const sslmode = (u.searchParams.get('sslmode') ?? (u.searchParams.get('ssl') === 'true' ? 'require' : 'prefer')).toLowerCase();
  if (!MODES.includes(sslmode)) throw new Error(`the queue URL's sslmode=${sslmode} is not one libpq knows: use ${MODES.slice(0, 6).join(', ')}`);
  const ca = readParam(u, 'sslrootcert');
  const cert = readParam(u, 'sslcert');
  const key = readParam(u, 'sslkey');
  const client = { ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  for (const k of SSL_PARAMS) u.searchParams.delete(k);
  const connectionString = u.toString();
  const unverified: TlsOption = { rejectUnauthorized: false, ...client };
  const caOnly: TlsOption = { rejectUnauthorized: true, ...(ca ? { ca } : {}), ...client, checkServerIdentity: () => undefined };
  const plan = (first: TlsOption, fallback?: TlsOption, retryWhen: (e: unknown) => boolean = () => false): TlsPlan => ({
    connectionString,
    sslmode,
    first,
    ...(fallback !== undefined ? { fallback } : {}),
    retryWhen,
  });
  switch (sslmode) {
    case 'disable':
      return plan(false);
    case 'allow':
      return plan(false, unverified, needsTls);
    case 'prefer':
      return plan(unverified, false, noTls);
    case 'require':
      return plan(ca ? caOnly : unverified);
    case 'no-verify':
      return plan(unverified);
    case 'verify-ca':
      return plan(caOnly);
    default:
      return plan({ rejectUnauthorized: true, ...(ca ? { ca } : {}), ...client });
  }
}
