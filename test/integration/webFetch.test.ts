// web_fetch through the real tool wrapper and policy, against real HTTP servers on
// loopback. Judged by what reaches the servers: a host no rule allows is asked about (and refused by
// yolo), a private or loopback address is never reached unless a rule names the host, a redirect to
// another host is not followed, and what comes back is Markdown, capped in size.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolCall } from '../../src/tools/runToolCall.js';
import { parseRule, validateRule, type PermissionRules } from '../../src/policy/permissions.js';
import { namesHost } from '../../src/policy/webRules.js';
import { isPrivateAddress } from '../../src/tools/fetchPage.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { makePolicy } from '../helpers/policy.js';
import { makeLoopDeps } from '../helpers/loopDeps.js';
import { tempDir } from '../helpers/env.js';

let server: http.Server;
let other: http.Server;
let base: string;
let otherBase: string;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`main ${req.url}`);
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
      res.end(
        zlib.gzipSync('<html><head><script>evil()</script></head><body><h1>Title</h1><p>Some <b>bold</b> text.</p><pre><code>x = 1</code></pre></body></html>'),
      );
    } else if (req.url === '/hop') {
      res.writeHead(302, { location: '/page' });
      res.end();
    } else if (req.url === '/away') {
      res.writeHead(302, { location: `${otherBase}/secret` });
      res.end();
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(1024 * 1024);
      res.write('START OF THE PAGE\n');
      for (let i = 0; i < 7; i++) res.write(chunk);
      res.end();
    } else if (req.url === '/docs/guide/table') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><body><table><tr><th>name</th><th>size</th></tr><tr><td>a.txt</td><td>3 | 4</td></tr></table>' +
          '<p><a href="../api/x.html" title="X">the api</a>, <a href="/top">top</a>, <a href="#part">a part</a>, ' +
          '<a href="https://example.org/ext">out</a> <img src="img/pic.png" alt="a  pic"></p></body></html>',
      );
    } else if (req.url === '/binary') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(100));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  other = http.createServer((req, res) => {
    hits.push(`other ${req.url}`);
    res.end('the other server');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  otherBase = `http://localhost:${(other.address() as { port: number }).port}`;
});
afterAll(() => {
  server.close();
  other.close();
});

async function fetchWith(url: string, allow: string[], mode: 'default' | 'yolo' = 'default') {
  const root = tempDir('devx-web-');
  const permissions: PermissionRules = { rules: allow.map((r) => parseRule(r, 'allow', 'user')), root, home: root };
  const policy = await makePolicy(root, { permissions, mode });
  const asked: string[] = [];
  const deps = makeLoopDeps(root, new ScriptedBackend([]), policy, {
    approve: async (req) => {
      asked.push(req.decision.rule);
      return 'yes';
    },
  });
  deps.ctx = { ...deps.ctx, webHostNamed: (h) => namesHost(h, permissions) };
  const o = await runToolCall({ tool: 'web_fetch', args: { url } }, deps);
  return { o, asked };
}

describe('web_fetch', () => {
  it('returns a page as Markdown (scripts dropped, gzip read) when a rule names the host', async () => {
    hits.length = 0;
    const { o, asked } = await fetchWith(`${base}/page`, ['WebFetch(domain:127.0.0.1)']);
    expect(asked).toEqual([]);
    expect(o.status).toBe('ok');
    expect(o.content).toMatch(/# Title/);
    expect(o.content).toMatch(/Some \*\*bold\*\* text\./);
    expect(o.content).toMatch(/```\nx = 1\n```/);
    expect(o.content).not.toMatch(/evil/);
  });

  it('asks for a host no rule allows; yolo refuses it without reaching the server', async () => {
    hits.length = 0;
    const asked = await fetchWith(`${base}/page`, []);
    expect(asked.asked).toEqual(['web:domain']);
    const y = await fetchWith(`${base}/page`, [], 'yolo');
    expect(y.o.status).toBe('error');
    expect(y.o.content).toMatch(/denied by policy \(web:domain\)/);
    expect(y.asked).toEqual([]);
  });

  it('a loopback address is refused at connect time unless a rule names that very host, even when approved', async () => {
    hits.length = 0;
    // A bare WebFetch allow lets public hosts through, not this machine.
    const bare = await fetchWith(`${base}/page`, ['WebFetch']);
    expect(bare.o.status).toBe('error');
    expect(bare.o.content).toMatch(/127\.0\.0\.1 is a private, loopback or link-local address/);
    // A person's yes to an unlisted host does not open it either; and a name resolving to loopback is caught too.
    const named = await fetchWith(`${otherBase}/x`, []);
    expect(named.asked).toEqual(['web:domain']);
    expect(named.o.content).toMatch(/localhost resolves to 127\.0\.0\.1, a private/);
    expect(hits).toEqual([]);
  });

  it('follows a redirect on the same host; names one to another host without following it', async () => {
    hits.length = 0;
    const same = await fetchWith(`${base}/hop`, ['WebFetch(domain:127.0.0.1)']);
    expect(same.o.content).toMatch(/# Title/);
    const away = await fetchWith(`${base}/away`, ['WebFetch(domain:127.0.0.1)']);
    expect(away.o.content).toMatch(new RegExp(`redirects to ${otherBase}/secret, another host`));
    expect(hits.filter((h) => h.startsWith('other'))).toEqual([]);
  });

  it('reads a page as a reader would: tables as Markdown tables, links and images absolute', async () => {
    const { o } = await fetchWith(`${base}/docs/guide/table`, ['WebFetch(domain:127.0.0.1)']);
    expect(o.status).toBe('ok');
    expect(o.content).toMatch(/^\| name +\| size +\|$/m);
    expect(o.content).toMatch(/^\| -+ \| -+ \|$/m);
    expect(o.content).toMatch(/^\| a\.txt +\| 3 \\\| 4 \|$/m);
    expect(o.content).toContain(`[the api](${base}/docs/api/x.html "X")`);
    expect(o.content).toContain(`[top](${base}/top)`);
    expect(o.content).toContain(`[a part](${base}/docs/guide/table#part)`);
    expect(o.content).toContain('[out](https://example.org/ext)');
    expect(o.content).toContain(`![a pic](${base}/docs/guide/img/pic.png)`);
  });

  it('returns the first 5 MB of a longer page, saying it was cut; refuses binary content with the reason', async () => {
    const huge = await fetchWith(`${base}/huge`, ['WebFetch(domain:127.0.0.1)']);
    expect(huge.o.status).toBe('ok');
    expect(huge.o.content).toMatch(/the page is longer than 5 MB; what follows is its first 5 MB/);
    expect(huge.o.content).toContain('START OF THE PAGE');
    const bin = await fetchWith(`${base}/binary`, ['WebFetch(domain:127.0.0.1)']);
    expect(bin.o.content).toMatch(/application\/octet-stream \(100 bytes\), not text/);
    const scheme = await fetchWith('file:///etc/passwd', ['WebFetch']);
    expect(scheme.o.content).toMatch(/http\(s\) URLs only/);
  });

  it('rules: WebFetch(domain:…) is validated; private ranges are known', () => {
    expect(validateRule('WebFetch(domain:docs.python.org)')).toBeNull();
    expect(validateRule('WebFetch(domain:*.example.com)')).toBeNull();
    expect(validateRule('WebFetch(example.com)')).toMatch(/domain:<host>/);
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
    ])
      expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(ip), ip).toBe(false);
  });
});
