// What web_fetch may reach. Claude Code's rule syntax: `WebFetch(domain:example.com)` allows that host
// (`domain:*.example.com` its subdomains), a deny or ask rule of the same form holds it back, and a bare
// `WebFetch` allow lets every public host through. A host no rule names asks, and no approval mode may
// lift that ask (yolo fetches only listed domains). Private, loopback and link-local addresses are
// refused by the tool at connect time unless a rule names the host itself (see namesHost).
import { ASK, DENY, settingsDecision, type PolicyDecision } from './types.js';
import type { PermissionRules, RuleKind } from './permissions.js';

const ORDER: RuleKind[] = ['deny', 'ask', 'allow'];

/** The host of an http(s) URL, lower-cased, without brackets; null when the URL is not one. */
export function urlHost(url: string): { host: string; protocol: string } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return { host: normalHost(u.hostname), protocol: u.protocol };
}

const normalHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

function domainOf(pattern: string | undefined): string | null {
  const m = /^domain:(.+)$/.exec(pattern?.trim() ?? '');
  return m ? m[1].trim().toLowerCase().replace(/\.$/, '') : null;
}

function hostMatches(domain: string, host: string): boolean {
  if (domain.startsWith('*.')) return host.endsWith(domain.slice(1)) && host.length > domain.length - 1;
  return host === domain;
}

/** The decision for fetching `url`. */
export function decideUrl(url: string, rules: PermissionRules | undefined): PolicyDecision {
  const parsed = urlHost(url);
  if (!parsed) return DENY(`"${url}" is not a URL; web_fetch takes an absolute http:// or https:// URL`, 'web:bad-url');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return DENY(`web_fetch fetches http(s) URLs only, not ${parsed.protocol}`, 'web:scheme');
  for (const kind of ORDER) {
    const hit = rules?.rules.find((r) => {
      const d = domainOf(r.pattern);
      return r.kind === kind && r.tool === 'WebFetch' && (r.pattern === undefined || (d !== null && hostMatches(d, parsed.host)));
    });
    if (!hit) continue;
    if (kind === 'deny') return settingsDecision('deny', hit.source, hit.raw, `denied by your settings rule ${hit.raw}`);
    // A WebFetch ask rule asks a person, whatever the mode.
    if (kind === 'ask')
      return { ...settingsDecision('ask', hit.source, hit.raw, `your settings rule ${hit.raw} asks first`, `web:ask:${hit.raw}`), lift: 'person' };
    return settingsDecision('allow', hit.source, hit.raw, `allowed by your settings rule ${hit.raw}`);
  }
  return ASK(`web_fetch reaches ${parsed.host}, a host no WebFetch(domain:…) rule allows`, 'web:domain');
}

/** Whether an allow rule names this exact host (then it may be a private or loopback address). */
export function namesHost(host: string, rules: PermissionRules | undefined): boolean {
  return Boolean(rules?.rules.some((r) => r.kind === 'allow' && r.tool === 'WebFetch' && domainOf(r.pattern) === normalHost(host)));
}
