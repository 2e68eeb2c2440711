// The audit log: every tool call as one JSON line in .devx/audit.jsonl (a file change with its planned
// diff's summary: kind, path, lines added and removed, the diff's hash), written with pino through a
// destination that chains hashes under a lock. It subscribes to loop events like any other sink.
import crypto from 'node:crypto';
import path from 'node:path';
import { createRequire } from 'node:module';
import type pino from 'pino';
import type { AgentEvent } from '../core/loop.js';
import { appendChained } from './chainedAppend.js';
import { summarizePlan } from '../tools/planSummary.js';

export function auditFile(root: string): string {
  return path.join(root, '.devx', 'audit.jsonl');
}

/** Long argument values (file contents) are recorded by size and hash, not in full. */
export function summarizeArgValue(v: string): string {
  if (v.length <= 2000) return v;
  return `<${Buffer.byteLength(v)} bytes sha256:${crypto.createHash('sha256').update(v).digest('hex').slice(0, 16)}>`;
}

const require = createRequire(import.meta.url);

export function createAuditLogger(file: string, session: string): pino.Logger {
  const pino = require('pino') as typeof import('pino').default;
  const destination = { write: (line: string) => appendChained(file, line.trimEnd()) };
  return pino(
    { base: { session }, timestamp: pino.stdTimeFunctions.isoTime, messageKey: 'event', formatters: { level: (label) => ({ level: label }) } },
    destination,
  );
}

/**
 * One entry in the shape pino writes (level, time, session, the fields, the event's name), without loading
 * pino: a model call and a background command are recorded in every run, and pino costs tens of ms to load.
 */
function appendEntry(file: string, session: string, fields: Record<string, unknown>, event: string): void {
  appendChained(file, JSON.stringify({ level: 'info', time: new Date().toISOString(), session, ...fields, event }));
}

/** A model call's entry: the model, the tokens the CLI reported (input, cached, output) and the time it took. */
function modelCallFields(e: Extract<AgentEvent, { type: 'model_response' }>): Record<string, unknown> {
  return {
    model: e.model,
    ...(e.account ? { account: e.account } : {}),
    round: e.round,
    input: e.usage?.input ?? null,
    cached: e.usage?.cached ?? null,
    output: e.usage?.output ?? null,
    durationMs: e.durationMs,
  };
}

/** A background command's entry: which, what it runs, and how it started, was stopped or ended. */
function backgroundFields(e: Extract<AgentEvent, { type: 'background' }>): Record<string, unknown> {
  const { type: _type, phase: _phase, cmd, ...rest } = e;
  return { ...rest, cmd: summarizeArgValue(cmd) };
}

export function createAuditSubscriber(file: string, session: string): (e: AgentEvent) => void {
  // The logger (and pino) load on the first tool call: a run that calls no tool never pays for them.
  let log: pino.Logger | undefined;
  return (e) => {
    if (e.type === 'model_response') return appendEntry(file, session, modelCallFields(e), 'model_call');
    if (e.type === 'background') return appendEntry(file, session, backgroundFields(e), `background_${e.phase}`);
    if (e.type === 'hook') {
      // A hook is a program the user's settings run: recorded like a call, with what it decided.
      log ??= createAuditLogger(file, session);
      log.info(
        {
          hook: e.event,
          command: summarizeArgValue(e.command),
          file: e.file,
          tool: e.tool ?? null,
          outcome: e.outcome,
          exitCode: e.exitCode,
          durationMs: e.durationMs,
          message: e.message ?? null,
        },
        'hook',
      );
      return;
    }
    if (e.type !== 'tool_end') return;
    log ??= createAuditLogger(file, session);
    const o = e.outcome;
    log.info(
      {
        tool: o.tool,
        args: Object.fromEntries(Object.entries(o.args).map(([k, v]) => [k, summarizeArgValue(v)])),
        decision: o.decision?.decision ?? null,
        rule: o.decision?.rule ?? null,
        reason: o.decision?.reason ?? null,
        answer: o.answer ?? null,
        status: o.status,
        durationMs: o.durationMs,
        bytes: Buffer.byteLength(o.content),
        // The file change the call made (or was refused): the same plan the person and the editor were shown.
        ...(o.plan ? { plan: summarizePlan(o.plan) } : {}),
      },
      'tool_call',
    );
  };
}
