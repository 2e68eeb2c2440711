// What the fake model APIs share: an HTTP server on 127.0.0.1, a queue of scripted replies, request
// bodies read as JSON, and a close that drops open connections (a hung reply included).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export abstract class FakeServer<Reply, Rec> {
  readonly requests: Rec[] = [];
  /** Errors thrown by scripted reply functions (assertions about requests); tests check it is empty. */
  readonly scriptErrors: Error[] = [];
  protected queue: (Reply | ((req: Rec) => Reply))[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: any = null;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          body = raw;
        }
        this.handle(req, res, body, raw);
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse, body: any, raw: string): void;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  push(...scripts: (Reply | ((req: Rec) => Reply))[]): void {
    this.queue.push(...scripts);
  }

  /** The next scripted reply (or the fallback); a throwing script is recorded, not fatal. */
  protected next(rec: Rec, fallback: Reply | ((req: Rec) => Reply), onError: (err: Error) => Reply): Reply {
    const next = this.queue.length ? this.queue.shift()! : fallback;
    try {
      return typeof next === 'function' ? (next as (req: Rec) => Reply)(rec) : next;
    } catch (err) {
      this.scriptErrors.push(err as Error);
      return onError(err as Error);
    }
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Ends every open connection (a hung reply among them); the server keeps listening. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
