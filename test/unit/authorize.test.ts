// The one authorization function over its whole matrix: mode × decision (and who may lift it) × claim ×
// sandbox × hook × rule source × standing answer × person's answer. Rows say what must come out; the
// invariants below hold for every combination.
import { describe, expect, it } from 'vitest';
import { authorize, type AuthorizeInput, type HookVerdict } from '../../src/policy/authorize.js';
import { ALLOW, ASK, DENY, settingsDecision, type PolicyDecision } from '../../src/policy/types.js';
import type { ApprovalMode } from '../../src/policy/decide.js';
import type { SandboxClaim } from '../../src/sandbox/claim.js';
import { builtinTools } from '../../src/tools/registry.js';

const WRITE: SandboxClaim = { profile: 'write', writes: ['/p/x'] };
const BUILD: SandboxClaim = { profile: 'build', writes: [] };
const claimed = (d: PolicyDecision, claim?: SandboxClaim): PolicyDecision => (claim ? { ...d, claim } : d);

/** Decisions of every kind: allowed, asks each lift, a settings allow, a settings ask, a deny. */
const DECISIONS: Record<string, PolicyDecision> = {
  'allow (read-only)': ALLOW('only reads', 'command:read-only:cat'),
  'allow (settings rule)': settingsDecision('allow', 'user', 'Bash(make:*)', 'allowed by your settings rule'),
  'ask, mode lifts (mkdir)': ASK('mkdir makes folders', 'command:write:mkdir'),
  'ask, mode lifts in sandbox (npm test)': ASK('runs the project', 'command:test-runner'),
  'ask, person only (unknown program)': ASK('not modelled', 'command:unknown'),
  'ask, person only (hard link)': ASK('2 hard links', 'path:hardlink'),
  'ask (settings ask rule)': settingsDecision('ask', 'user', 'Bash(rm:*)', 'your settings rule asks first'),
  'ask (file write)': ASK('write_file changes files', 'tool:write'),
  deny: DENY('denied', 'path:env'),
};
const MODES: ApprovalMode[] = ['default', 'auto-edit', 'yolo', 'plan'];
const CLAIMS: (SandboxClaim | undefined)[] = [undefined, WRITE, BUILD];
const HOOKS: (HookVerdict | undefined)[] = [undefined, { allow: true }, { ask: 'the hook asks' }, { block: 'the hook blocks' }];
const TOOLS: AuthorizeInput['tool'][] = [
  { name: 'run_command', kind: 'execute' },
  { name: 'write_file', kind: 'write' },
  { name: 'read_file', kind: 'read' },
];

function* everyInput(): Generator<AuthorizeInput> {
  for (const [, d] of Object.entries(DECISIONS))
    for (const claim of CLAIMS)
      for (const mode of MODES)
        for (const sandbox of [true, false])
          for (const hook of HOOKS)
            for (const tool of TOOLS)
              for (const standing of [false, true])
                for (const person of [false, true])
                  for (const answer of [undefined, 'yes', 'no'] as const)
                    yield { decision: claimed(d, claim), mode, sandbox, hook, tool, standing, person, ...(answer ? { answer } : {}) };
}

describe('authorize: the whole matrix', () => {
  it('nothing a person (or their settings rule) did not approve runs outside the claim the policy made', () => {
    let runs = 0;
    for (const i of everyInput()) {
      const a = authorize(i);
      if (a.kind !== 'run') continue;
      runs++;
      const byPerson = a.approvedBy === 'person' || a.approvedBy === 'standing' || a.approvedBy === 'settings';
      if (!byPerson) expect(a.sandbox, JSON.stringify(i)).toEqual(i.sandbox ? (i.decision.claim ?? { profile: 'read-only', writes: [] }) : null);
      if (!byPerson && !i.sandbox) expect(i.decision.lift === 'mode-in-sandbox' || i.decision.lift === 'person', JSON.stringify(i)).toBe(false);
    }
    expect(runs).toBeGreaterThan(1000);
  });

  it('a deny holds in every mode, with every hook and answer; a hook block holds too', () => {
    for (const i of everyInput()) {
      if (i.decision.decision === 'deny' || i.hook?.block) expect(authorize(i).kind, JSON.stringify(i)).toBe('refuse');
    }
  });

  it('an ask only a person may lift runs only with a person’s yes (now or standing), never by a mode or a hook', () => {
    for (const i of everyInput()) {
      if (i.decision.lift !== 'person') continue;
      const a = authorize(i);
      if (a.kind === 'run') expect(['person', 'standing'], JSON.stringify(i)).toContain(a.approvedBy);
    }
  });

  it('yolo never asks: it runs what it may and refuses the rest; plan runs only reads the policy allows', () => {
    for (const i of everyInput()) {
      const a = authorize(i);
      if (i.mode === 'yolo' && !i.answer && !i.standing) expect(a.kind, JSON.stringify(i)).not.toBe('ask');
      if (i.mode === 'plan' && a.kind === 'run') {
        expect(i.decision.decision).toBe('allow');
        expect(i.tool.kind === 'read' || i.tool.name === 'run_command').toBe(true);
      }
    }
  });

  it('same input, same output', () => {
    for (const i of everyInput()) expect(authorize(i)).toEqual(authorize(structuredClone(i)));
  });
});

describe('authorize: rows', () => {
  const base = (over: Partial<AuthorizeInput>): AuthorizeInput => ({
    decision: DECISIONS['allow (read-only)'],
    tool: TOOLS[0],
    mode: 'default',
    sandbox: true,
    person: true,
    ...over,
  });
  const rows: [string, Partial<AuthorizeInput>, unknown][] = [
    [
      'an allowed command runs in its claim',
      { decision: claimed(DECISIONS['allow (read-only)'], WRITE) },
      { kind: 'run', sandbox: WRITE, approvedBy: 'policy' },
    ],
    ['an allowed command without a sandbox runs as it is', { sandbox: false }, { kind: 'run', sandbox: null, approvedBy: 'policy' }],
    [
      'a settings allow rule is the person’s yes in advance',
      { decision: DECISIONS['allow (settings rule)'] },
      { kind: 'run', sandbox: null, approvedBy: 'settings' },
    ],
    ['default mode asks a person', { decision: DECISIONS['ask, mode lifts (mkdir)'] }, { kind: 'ask' }],
    ['headless refuses what it would ask', { decision: DECISIONS['ask, mode lifts (mkdir)'], person: false }, { kind: 'refuse', by: 'nobody' }],
    [
      'a person’s yes runs it as approved',
      { decision: claimed(DECISIONS['ask, person only (unknown program)'], BUILD), answer: 'yes' },
      { kind: 'run', sandbox: null, approvedBy: 'person' },
    ],
    ['a person’s no refuses it', { decision: DECISIONS['ask, mode lifts (mkdir)'], answer: 'no' }, { kind: 'refuse', by: 'person' }],
    [
      'a standing answer runs it as the person approved it',
      { decision: DECISIONS['ask, person only (unknown program)'], standing: true },
      { kind: 'run', approvedBy: 'standing', sandbox: null },
    ],
    [
      'yolo lifts a modelled write, held to its claim',
      { mode: 'yolo', decision: claimed(DECISIONS['ask, mode lifts (mkdir)'], WRITE) },
      { kind: 'run', approvedBy: 'mode', sandbox: WRITE },
    ],
    [
      'yolo lifts a test runner only in the sandbox',
      { mode: 'yolo', decision: claimed(DECISIONS['ask, mode lifts in sandbox (npm test)'], BUILD) },
      { kind: 'run', sandbox: BUILD },
    ],
    [
      '…and refuses it without one',
      { mode: 'yolo', sandbox: false, decision: DECISIONS['ask, mode lifts in sandbox (npm test)'] },
      { kind: 'refuse', by: 'mode' },
    ],
    ['yolo refuses what only a person may lift', { mode: 'yolo', decision: DECISIONS['ask, person only (hard link)'] }, { kind: 'refuse', by: 'mode' }],
    ['auto-edit lifts a file write', { mode: 'auto-edit', tool: TOOLS[1], decision: DECISIONS['ask (file write)'] }, { kind: 'run', approvedBy: 'mode' }],
    ['auto-edit asks for a command', { mode: 'auto-edit', decision: DECISIONS['ask, mode lifts (mkdir)'] }, { kind: 'ask' }],
    [
      'a hook’s allow lifts what a mode may, held to the claim',
      { hook: { allow: true }, decision: claimed(DECISIONS['ask, mode lifts (mkdir)'], WRITE) },
      { kind: 'run', approvedBy: 'hook', sandbox: WRITE },
    ],
    [
      'a hook’s allow does not lift what only a person may',
      { hook: { allow: true }, decision: DECISIONS['ask, person only (unknown program)'] },
      { kind: 'ask' },
    ],
    ['a hook’s ask makes an allowed call ask a person, even in yolo', { mode: 'yolo', hook: { ask: 'check first' } }, { kind: 'refuse', by: 'mode' }],
    ['a hook’s block refuses even a person-approved call', { hook: { block: 'no' }, answer: 'yes' }, { kind: 'refuse', by: 'hook' }],
    ['plan mode refuses a write', { mode: 'plan', tool: TOOLS[1], decision: DECISIONS['ask (file write)'] }, { kind: 'refuse', by: 'plan' }],
    ['plan mode runs an allowed read-only command', { mode: 'plan' }, { kind: 'run', approvedBy: 'policy' }],
    [
      'plan mode refuses a meta tool that writes what outlives the session (a note to the knowledge store, MEMORY.md)',
      { mode: 'plan', tool: { name: 'store_qdrant', kind: 'meta', writesState: true }, decision: ALLOW('stores', 'tool:meta') },
      { kind: 'refuse', by: 'plan' },
    ],
    [
      'plan mode runs a query of the shared knowledge store',
      { mode: 'plan', tool: { name: 'query_qdrant', kind: 'read' }, decision: ALLOW('reads', 'tool:read') },
      { kind: 'run', approvedBy: 'policy' },
    ],
    ['a settings ask rule is lifted by yolo', { mode: 'yolo', decision: DECISIONS['ask (settings ask rule)'] }, { kind: 'run', approvedBy: 'mode' }],
  ];
  for (const [name, over, want] of rows) it(name, () => expect(authorize(base(over))).toMatchObject(want as object));
});

describe('plan mode and the built-in meta tools', () => {
  it('refuses those that change what is not the conversation’s, and runs those that look or keep the session’s own list', () => {
    const planned = (name: string) => {
      const t = builtinTools().find((x) => x.name === name)!;
      const input: AuthorizeInput = {
        mode: 'plan',
        tool: { name, kind: t.kind, writesState: t.writesState },
        decision: ALLOW('meta', 'tool:meta'),
        sandbox: true,
        person: true,
      };
      return authorize(input).kind;
    };
    expect(['stop_command', 'remember', 'store_qdrant'].map(planned)).toEqual(['refuse', 'refuse', 'refuse']);
    expect(['command_output', 'todo', 'query_qdrant'].map(planned)).toEqual(['run', 'run', 'run']);
  });
});
