// What devx keeps of an MCP server's OAuth sign-in: the client registration, the tokens and the
// discovered endpoints, in ~/.devx/mcp-oauth/ (folder 0700, files 0600, never through a link). The file
// is keyed by the server's name *and* URL: a project that names its server like one of the user's, at
// another address, finds no token to be sent there.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';

export interface OAuthRecord {
  server: string;
  url: string;
  client?: Record<string, unknown>;
  tokens?: { access_token: string; refresh_token?: string; expires_in?: number; token_type: string; scope?: string; [k: string]: unknown };
  /** When the tokens were saved (ms since epoch): expires_in counts from here. */
  savedAt?: number;
  discovery?: Record<string, unknown>;
}

export function oauthDir(devxHome: string): string {
  return path.join(devxHome, 'mcp-oauth');
}

export function oauthFile(devxHome: string, server: string, url: string): string {
  const key = crypto.createHash('sha256').update(`${server}\0${url}`).digest('hex').slice(0, 16);
  return path.join(oauthDir(devxHome), `${server}-${key}.json`);
}

export class OAuthStore {
  constructor(
    readonly file: string,
    private readonly server: string,
    private readonly url: string,
  ) {}

  static for(devxHome: string, server: string, url: string): OAuthStore {
    return new OAuthStore(oauthFile(devxHome, server, url), server, url);
  }

  /** The record, or an empty one when there is none or it cannot be read (a damaged file is a sign-in again, not a crash). */
  read(): OAuthRecord {
    try {
      const st = fs.lstatSync(this.file);
      if (!st.isFile()) return this.empty();
      const rec = JSON.parse(fs.readFileSync(this.file, 'utf8')) as OAuthRecord;
      // A file that names another server or address is not this one's (copied by hand, or a hash clash).
      return rec && rec.server === this.server && rec.url === this.url ? rec : this.empty();
    } catch {
      return this.empty();
    }
  }

  update(change: (rec: OAuthRecord) => void): void {
    const rec = this.read();
    change(rec);
    mkdirOwnedSync(path.dirname(this.file), 0o700);
    fs.chmodSync(path.dirname(this.file), 0o700);
    // Created 0600 before any secret is in it; the atomic rewrite keeps the mode.
    if (!fs.existsSync(this.file)) writeNewOwnedSync(this.file, '{}');
    writeFileAtomicSync(this.file, `${JSON.stringify(rec, null, 2)}\n`);
  }

  remove(): boolean {
    const had = fs.existsSync(this.file);
    fs.rmSync(this.file, { force: true });
    return had;
  }

  hasTokens(): boolean {
    return Boolean(this.read().tokens?.access_token);
  }

  private empty(): OAuthRecord {
    return { server: this.server, url: this.url };
  }
}
