// The queue URL's sslmode as libpq documents it (queue/postgres/tls.ts): what node-postgres is given for each
// mode, with the URL's ssl parameters taken off so node-postgres neither reinterprets them nor warns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tlsPlan } from '../../src/queue/postgres/tls.js';

const URL_BASE = 'postgres://devx@db:5432/q';

describe('sslmode as libpq documents it', () => {
  it('disable is plain; allow tries plain then TLS; prefer (and none) tries TLS then plain; require encrypts unverified', () => {
    expect(tlsPlan(`${URL_BASE}?sslmode=disable`)).toMatchObject({ first: false, connectionString: `${URL_BASE}` });
    expect(tlsPlan(`${URL_BASE}?sslmode=allow`)).toMatchObject({ first: false, fallback: { rejectUnauthorized: false } });
    for (const url of [`${URL_BASE}?sslmode=prefer`, URL_BASE]) {
      const p = tlsPlan(url);
      expect(p).toMatchObject({ sslmode: 'prefer', first: { rejectUnauthorized: false }, fallback: false });
      expect(p.retryWhen(new Error('The server does not support SSL connections'))).toBe(true);
      expect(p.retryWhen(new Error('password authentication failed'))).toBe(false);
    }
    expect(tlsPlan(`${URL_BASE}?sslmode=require`)).toMatchObject({ first: { rejectUnauthorized: false } });
    expect(tlsPlan(`${URL_BASE}?sslmode=require`).fallback).toBeUndefined();
  });

  it('verify-ca checks the CA and not the name; verify-full both; require with a root certificate is verify-ca; a wrong path or mode is said', () => {
    const ca = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-tls-')), 'ca.crt');
    fs.writeFileSync(ca, 'CA PEM');
    try {
      const verifyCa = tlsPlan(`${URL_BASE}?sslmode=verify-ca&sslrootcert=${ca}`);
      expect(verifyCa.first).toMatchObject({ rejectUnauthorized: true, ca: 'CA PEM' });
      expect((verifyCa.first as { checkServerIdentity: () => undefined }).checkServerIdentity()).toBeUndefined();
      expect(verifyCa.connectionString).toBe(URL_BASE);
      expect(tlsPlan(`${URL_BASE}?sslmode=require&sslrootcert=${ca}`).first).toMatchObject({ rejectUnauthorized: true, ca: 'CA PEM' });
      const full = tlsPlan(`${URL_BASE}?sslmode=verify-full&sslrootcert=${ca}&application_name=x`);
      expect(full.first).toEqual({ rejectUnauthorized: true, ca: 'CA PEM' });
      expect(full.connectionString).toBe(`${URL_BASE}?application_name=x`);
    } finally {
      fs.rmSync(path.dirname(ca), { recursive: true, force: true });
    }
    expect(() => tlsPlan(`${URL_BASE}?sslmode=verify-ca&sslrootcert=/nonexistent/ca.crt`)).toThrow(
      /sslrootcert names \/nonexistent\/ca\.crt, which devx cannot read \(ENOENT\)/,
    );
    expect(() => tlsPlan(`${URL_BASE}?sslmode=strict`)).toThrow(/sslmode=strict is not one libpq knows/);
  });
});
