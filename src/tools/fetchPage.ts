// Fetching one page for web_fetch, with the limits a tool the model drives needs: http(s) only, the
// address checked at connect time (a name that resolves to a private, loopback or link-local address is
// refused unless a rule names the host: no SSRF through DNS), redirects followed on the same host only,
// a size cap (a longer page is cut there, and says so), a timeout, and HTML turned into Markdown as a reader
// would want it: tables as Markdown tables (the GFM plugin), links and images made absolute.
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import zlib from 'node:zlib';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';

export const MAX_BYTES = 5 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

// Addresses a fetch must not reach on its own: this machine, its networks, cloud metadata services.
const PRIVATE = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(a, p, 'ipv6');

export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  const family = net.isIP(ip);
  return family === 4 ? PRIVATE.check(ip, 'ipv4') : family === 6 ? PRIVATE.check(ip, 'ipv6') : true;
}

export interface Page {
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  text: string;
  /** Set when the page redirects to another host (not followed). */
  redirectedTo?: string;
  /** The page was longer than devx reads: text holds its first MAX_BYTES. */
  cut?: boolean;
}

interface Options {
  signal: AbortSignal;
  /** Whether a settings rule names this host, so it may be a private address. */
  privateAllowed: (host: string) => boolean;
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}

interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  cut: boolean;
}

function getOnce(url: URL, opts: Options): Promise<Response> {
  const host = bare(url.hostname);
  const allowPrivate = opts.privateAllowed(host);
  if (net.isIP(host) && isPrivateAddress(host) && !allowPrivate)
    return Promise.reject(new Error(`${host} is a private, loopback or link-local address; a WebFetch(domain:${host}) allow rule lets devx reach it`));
  // Checked where the connection is made, so a name cannot resolve to one address when judged and another when used.
  const lookup: net.LookupFunction = (hostname, options, cb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (cb as (e: Error) => void)(err);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad && !allowPrivate)
        return (cb as (e: Error) => void)(
          new Error(
            `${hostname} resolves to ${bad.address}, a private, loopback or link-local address; a WebFetch(domain:${hostname}) allow rule lets devx reach it`,
          ),
        );
      if ((options as dns.LookupOptions).all) return (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      cb(null, list[0].address, list[0].family);
    });
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'GET',
        lookup,
        signal: opts.signal,
        timeout: TIMEOUT_MS,
        headers: {
          'user-agent': 'devx (web_fetch)',
          accept: 'text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      (res) => {
        const enc = String(res.headers['content-encoding'] ?? '').toLowerCase();
        const stream =
          enc === 'gzip'
            ? res.pipe(zlib.createGunzip())
            : enc === 'deflate'
              ? res.pipe(zlib.createInflate())
              : enc === 'br'
                ? res.pipe(zlib.createBrotliDecompress())
                : res;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (cut: boolean) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), cut });
        stream.on('data', (c: Buffer) => {
          if (size + c.length > MAX_BYTES) {
            // The first MAX_BYTES are kept; the rest is not read.
            chunks.push(c.subarray(0, MAX_BYTES - size));
            size = MAX_BYTES;
            done(true);
            req.destroy();
            return;
          }
          size += c.length;
          chunks.push(c);
        });
        stream.on('end', () => done(false));
        stream.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end();
  });
}

export async function fetchPage(raw: string, opts: Options): Promise<Page> {
  let url = new URL(raw);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`a redirect led to ${url.protocol} URL, which web_fetch does not follow`);
    const r = await getOnce(url, opts);
    const location = r.headers.location;
    if (r.status >= 300 && r.status < 400 && location) {
      const next = new URL(location, url);
      if (bare(next.hostname) !== bare(url.hostname)) return { url: url.href, status: r.status, contentType: '', bytes: 0, text: '', redirectedTo: next.href };
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      url = next;
      continue;
    }
    const contentType = String(r.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const text = r.body.toString('utf8');
    const page = { url: url.href, status: r.status, contentType, bytes: r.body.length, ...(r.cut ? { cut: true } : {}) };
    if (/html/.test(contentType) || (!contentType && /^\s*<(!doctype|html)/i.test(text))) return { ...page, text: htmlToMarkdown(text, url) };
    if (contentType && !/^text\/|json|xml|javascript|yaml|toml|csv/.test(contentType)) {
      throw new Error(`it is ${contentType} (${r.body.length} bytes), not text; web_fetch returns pages and text only`);
    }
    return { ...page, text };
  }
}

/** A URL of the page made absolute (against its <base href> when it has one); left as written when it cannot be. */
function absolute(href: string, base: URL): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/** The page as Markdown: tables as tables, links and images absolute, scripts and styles left out. */
export function htmlToMarkdown(html: string, pageUrl: URL): string {
  const baseHref = /<base\s[^>]*href\s*=\s*["']?([^"'\s>]+)/i.exec(html)?.[1];
  const base = baseHref ? new URL(absolute(baseHref, pageUrl)) : pageUrl;
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
  td.use(gfm);
  td.remove(['script', 'style', 'noscript', 'iframe']);
  td.addRule('absoluteLinks', {
    filter: (node) => node.nodeName === 'A' && Boolean(node.getAttribute('href')),
    replacement: (content, node) => {
      const el = node as HTMLElement;
      const title = el.getAttribute('title');
      return `[${content}](${absolute(el.getAttribute('href')!, base)}${title ? ` "${title.replace(/"/g, '\\"')}"` : ''})`;
    },
  });
  td.addRule('absoluteImages', {
    filter: (node) => node.nodeName === 'IMG' && Boolean(node.getAttribute('src')),
    replacement: (_content, node) => {
      const el = node as HTMLElement;
      return `![${(el.getAttribute('alt') ?? '').replace(/\s+/g, ' ')}](${absolute(el.getAttribute('src')!, base)})`;
    },
  });
  return td.turndown(html);
}
