// An MCP tool's JSON Schema in protocol terms: one `key=value` argument per top-level property,
// values coerced by the schema (numbers, integers, booleans, enums, JSON for arrays and objects),
// and `json=` carrying a whole object of arguments (nested values, or every argument at once).
import { JSON_KEY, protocolKey } from './names.js';

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
};

export interface ArgSpec {
  /** The protocol key (snake_case). */
  key: string;
  /** The property name the server expects. */
  prop: string;
  schema: JsonSchema;
  required: boolean;
}

/** An argument the model got wrong, explained so it can fix it. */
export class ArgumentError extends Error {}

export function argSpecs(input: JsonSchema | undefined): ArgSpec[] {
  const props = input?.properties ?? {};
  const required = new Set(input?.required ?? []);
  const used = new Set<string>([JSON_KEY]);
  const out: ArgSpec[] = [];
  for (const [prop, schema] of Object.entries(props)) {
    let key = protocolKey(prop);
    while (used.has(key)) key = `${key}_`;
    used.add(key);
    out.push({ key, prop, schema: schema ?? {}, required: required.has(prop) });
  }
  return out;
}

function typesOf(s: JsonSchema): string[] {
  if (s.enum) return ['enum'];
  if (s.const !== undefined) return ['const'];
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.flatMap(typesOf);
  if (Array.isArray(s.type)) return s.type;
  return s.type ? [s.type] : [];
}

/** The value's type in a few words, for the manual. */
export function describeType(s: JsonSchema): string {
  if (s.enum) return `one of ${s.enum.map((v) => String(v)).join(' | ')}`;
  const t = [...new Set(typesOf(s).filter((x) => x !== 'null'))];
  if (!t.length) return 'any';
  return t.map((x) => (x === 'array' || x === 'object' ? `${x} (JSON)` : x)).join(' or ');
}

const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

function coerceOne(raw: string, s: JsonSchema): { ok: true; value: unknown } | { ok: false; why: string } {
  if (s.enum) {
    const hit = s.enum.find((v) => String(v) === raw.trim());
    return hit !== undefined ? { ok: true, value: hit } : { ok: false, why: `expected one of ${s.enum.map(String).join(', ')}` };
  }
  if (s.const !== undefined) return String(s.const) === raw.trim() ? { ok: true, value: s.const } : { ok: false, why: `expected ${String(s.const)}` };
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    const whys: string[] = [];
    for (const a of alts) {
      const r = coerceOne(raw, a);
      if (r.ok) return r;
      whys.push(r.why);
    }
    return { ok: false, why: whys.join('; or ') };
  }
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (!types.length) return { ok: true, value: raw };
  // Stricter types first, so "3" is a number when the schema allows number or string.
  const order = ['null', 'boolean', 'integer', 'number', 'array', 'object', 'string'];
  const whys: string[] = [];
  for (const t of order.filter((x) => types.includes(x))) {
    const v = raw.trim();
    if (t === 'string') return { ok: true, value: raw };
    if (t === 'null' && v === 'null') return { ok: true, value: null };
    if (t === 'boolean') {
      if (v === 'true' || v === 'false') return { ok: true, value: v === 'true' };
      whys.push('expected true or false');
    }
    if (t === 'integer' || t === 'number') {
      const n = Number(v);
      if (NUMBER.test(v) && Number.isFinite(n) && (t === 'number' || Number.isInteger(n))) return { ok: true, value: n };
      whys.push(t === 'integer' ? 'expected a whole number' : 'expected a number');
    }
    if (t === 'array' || t === 'object') {
      try {
        const j = JSON.parse(v) as unknown;
        if (t === 'array' ? Array.isArray(j) : j !== null && typeof j === 'object' && !Array.isArray(j)) return { ok: true, value: j };
      } catch {
        /* not JSON */
      }
      // A bare scalar where an array of scalars is expected is a one-element array.
      if (t === 'array' && s.items && !v.startsWith('[')) {
        const one = coerceOne(raw, s.items);
        if (one.ok && (typeof one.value !== 'object' || one.value === null)) return { ok: true, value: [one.value] };
      }
      whys.push(t === 'array' ? 'expected a JSON array, e.g. ["a","b"]' : 'expected a JSON object, e.g. {"k":"v"}');
    }
  }
  return { ok: false, why: [...new Set(whys)].join(' or ') };
}

/**
 * The arguments object sent to the server: `json=` first, then each `k=v` coerced by its property's
 * schema on top. Throws ArgumentError naming every problem.
 */
export function buildArguments(specs: ArgSpec[], args: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  const json = args[JSON_KEY];
  if (json !== undefined && json.trim() !== '') {
    try {
      const j = JSON.parse(json) as unknown;
      if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new Error('not an object');
      Object.assign(out, j);
    } catch {
      problems.push(`argument "${JSON_KEY}": expected a JSON object of arguments, e.g. json={"key":"value"}`);
    }
  }
  for (const spec of specs) {
    const raw = args[spec.key];
    if (raw === undefined) continue;
    const r = coerceOne(raw, spec.schema);
    if (r.ok) out[spec.prop] = r.value;
    else problems.push(`argument "${spec.key}": ${r.why} (got ${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)})`);
  }
  const missing = specs.filter((s) => s.required && !(s.prop in out)).map((s) => s.key);
  if (missing.length) problems.push(`missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}`);
  if (problems.length) throw new ArgumentError(problems.join('; '));
  return out;
}

/** A plausible value for the manual's example call. */
export function exampleValue(s: JsonSchema): string {
  if (s.enum?.length) return String(s.enum[0]);
  const t = typesOf(s).filter((x) => x !== 'null')[0];
  if (t === 'integer' || t === 'number') return '1';
  if (t === 'boolean') return 'true';
  if (t === 'array') return '["..."]';
  if (t === 'object') return '{"...":"..."}';
  return '...';
}
