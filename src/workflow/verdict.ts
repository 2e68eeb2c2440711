// Verdicts are validated, not trusted: the reply's last JSON object that parses (fenced or not) is
// checked with zod against the step's schema; what was wrong is said in words the model can act on.
import * as z from 'zod';

export const VERDICT_KINDS = ['review', 'approve_reject', 'pass_fail', 'commit'] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

const withWords = (words: [string, ...string[]]) => z.object({ verdict: z.enum(words), feedback: z.string().optional() }).passthrough();

export function verdictSchema(v: VerdictKind | string[]): z.ZodType<Record<string, unknown>> {
  if (Array.isArray(v)) return withWords(v as [string, ...string[]]);
  switch (v) {
    case 'review':
      return withWords(['APPROVE', 'REJECT', 'ESCALATE']);
    case 'approve_reject':
      return withWords(['APPROVE', 'REJECT']);
    case 'pass_fail':
      return withWords(['PASS', 'FAIL']);
    case 'commit':
      return z.object({ commit_hash: z.string().regex(/^[0-9a-f]{4,40}$/i, 'a git commit hash (hex)'), tests_passed: z.boolean() }).passthrough();
  }
}

/** The example line a prompt shows for the verdict. */
export function verdictExample(v: VerdictKind | string[]): string {
  if (v === 'commit') return '{"commit_hash": "<the hash of your commit>", "tests_passed": true}';
  const words = Array.isArray(v) ? v : v === 'review' ? ['APPROVE', 'REJECT', 'ESCALATE'] : v === 'approve_reject' ? ['APPROVE', 'REJECT'] : ['PASS', 'FAIL'];
  return `{"verdict": ${words.map((w) => `"${w}"`).join(' | ')}, "feedback": "<what must change, if anything>"}`;
}

/** Every balanced {...} candidate in the text, in order of where it ends (strings respected). */
function objectCandidates(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  const stack: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && stack.length) inString = true;
    else if (c === '{') stack.push(i);
    else if (c === '}' && stack.length) out.push({ start: stack.pop()!, end: i + 1 });
  }
  return out.sort((a, b) => a.end - b.end || a.start - b.start);
}

function lastObject(text: string): { value: Record<string, unknown>; start: number; end: number } | null {
  const cands = objectCandidates(text);
  for (let i = cands.length - 1; i >= 0; i--) {
    try {
      const v = JSON.parse(text.slice(cands[i].start, cands[i].end)) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return { value: v as Record<string, unknown>, ...cands[i] };
    } catch {
      // not JSON: an earlier candidate may be
    }
  }
  return null;
}

/** The last JSON object in a reply that parses; outer objects win over the ones nested in them. */
export function extractLastJson(text: string): Record<string, unknown> | null {
  return lastObject(text)?.value ?? null;
}

export type VerdictResult = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

export function readVerdict(answer: string, kind: VerdictKind | string[]): VerdictResult {
  const obj = extractLastJson(answer);
  if (!obj) return { ok: false, problem: 'your answer did not end with a JSON object' };
  const r = verdictSchema(kind).safeParse(obj);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const field = issue.path.join('.') || '(the object)';
  return { ok: false, problem: `the JSON object ${JSON.stringify(obj).slice(0, 200)} is not a valid verdict: ${field}: ${issue.message}` };
}

/** The answer without a verdict object at its very end (fenced or not): what is saved as the report. */
export function stripVerdict(answer: string): string {
  const o = lastObject(answer);
  if (!o) return answer.trim();
  const after = answer.slice(o.end).replace(/```/g, '').trim();
  if (after) return answer.trim();
  return answer
    .slice(0, o.start)
    .replace(/```(?:json)?\s*$/, '')
    .trim();
}
