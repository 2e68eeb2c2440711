// The workflow engine's pure parts: verdict extraction, definition checks, test command detection.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractLastJson, readVerdict, stripVerdict } from '../../src/workflow/verdict.js';
import { parseWorkflow, WorkflowDefinitionError } from '../../src/workflow/definition.js';
import { detectTestCommand } from '../../src/workflow/testCommand.js';
import { slugOf } from '../../src/workflow/state.js';
import { artifactTargetProblem } from '../../src/workflow/artifactPath.js';
import { tempDir } from '../helpers/env.js';

describe('verdicts', () => {
  it('takes the last JSON object that parses, fenced or not, outer over nested', () => {
    expect(extractLastJson('first {"verdict":"REJECT"} then\n```json\n{"verdict": "APPROVE", "meta": {"x": 1}}\n```')).toEqual({
      verdict: 'APPROVE',
      meta: { x: 1 },
    });
    expect(extractLastJson('{"verdict":"PASS"} and a broken {"verdict": } tail')).toEqual({ verdict: 'PASS' });
    expect(extractLastJson('a brace in a string {"feedback": "use } here", "verdict": "FAIL"}')).toEqual({ feedback: 'use } here', verdict: 'FAIL' });
    expect(extractLastJson('no json at all { not json }')).toBeNull();
    expect(extractLastJson('[1, 2]')).toBeNull();
  });

  it('validates against the step schema and says what was wrong', () => {
    expect(readVerdict('ok {"verdict":"APPROVE"}', 'approve_reject')).toEqual({ ok: true, value: { verdict: 'APPROVE' } });
    const bad = readVerdict('{"verdict":"ESCALATE"}', 'approve_reject');
    expect(bad.ok).toBe(false);
    expect((bad as { problem: string }).problem).toMatch(/verdict: Invalid option/);
    expect(readVerdict('done', 'pass_fail')).toEqual({ ok: false, problem: 'your answer did not end with a JSON object' });
    expect(readVerdict('{"commit_hash": "abc1234", "tests_passed": "yes"}', 'commit').ok).toBe(false);
    expect(readVerdict('{"commit_hash": "abc1234", "tests_passed": true}', 'commit').ok).toBe(true);
    expect(readVerdict('{"verdict": "SHIP"}', ['SHIP', 'HOLD']).ok).toBe(true);
  });

  it('strips only a trailing verdict from the report', () => {
    expect(stripVerdict('# Review\nGood.\n```json\n{"verdict":"APPROVE"}\n```\n')).toBe('# Review\nGood.');
    expect(stripVerdict('Report\n{"verdict":"PASS"}')).toBe('Report');
    expect(stripVerdict('Config is {"a": 1} here, more text')).toBe('Config is {"a": 1} here, more text');
  });
});

const roles = (r: string) => ['a', 'b'].includes(r);
const parse = (text: string) => parseWorkflow(text, '/x/w.yaml', 'project', roles);

describe('workflow definitions', () => {
  it('loads a valid one and caps every verdict transition with the default', () => {
    const d = parse(
      'name: w\nsteps:\n  ONE:\n    role: a\n    next: TWO\n  TWO:\n    role: b\n    verdict: approve_reject\n    on:\n      APPROVE: $done\n      REJECT: ONE\n',
    );
    expect(d.start).toBe('ONE');
    expect(d.steps.TWO.transitions).toEqual({ APPROVE: { to: '$done', cap: 3 }, REJECT: { to: 'ONE', cap: 3 } });
    expect(d.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('rejects bad definitions with the file and line', () => {
    const err = (t: string) => {
      try {
        parse(t);
      } catch (e) {
        expect(e).toBeInstanceOf(WorkflowDefinitionError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(err('name: w\nsteps:\n  ONE:\n    role: zzz\n')).toBe(
      '/x/w.yaml:4: unknown role "zzz" (no agent of that name in prompts/agents, ~/.devx/agents or .devx/agents)',
    );
    expect(err('name: w\nsteps:\n  ONE:\n    role: a\n    next: NOPE\n')).toMatch(/^\/x\/w\.yaml:5: transition to a missing step "NOPE"/);
    expect(err('name: w\nsteps:\n  ONE:\n    role: a\n    next: TWO\n  TWO:\n    role: b\n    next: ONE\n')).toMatch(
      /^\/x\/w\.yaml:8: the cycle ONE -> TWO -> ONE has no cap/,
    );
    expect(err('name: w\nsteps:\n  ONE:\n    role: a\n    verdict: pass_fail\n    on:\n      MAYBE: $done\n')).toMatch(
      /^\/x\/w\.yaml:7: "MAYBE" is not a verdict of this step/,
    );
    expect(err('name: w\nsteps:\n  ONE:\n    role: a\n    colour: red\n')).toMatch(/^\/x\/w\.yaml:5: unknown key "colour"/);
    expect(err('name: w\nsteps: [\n')).toMatch(/^\/x\/w\.yaml:\d+: invalid YAML/);
    expect(err('name: w\nmodes:\n  fast: GONE\nsteps:\n  ONE:\n    role: a\n')).toMatch(/^\/x\/w\.yaml:3: transition to a missing step "GONE"/);
  });

  it("a step's artifact path stays inside the project and off git's, devx's and protected files (devx writes it itself)", () => {
    const writes = (w: string) => {
      try {
        parse(`name: w\nsteps:\n  ONE:\n    role: a\n    writes: ${JSON.stringify(w)}\n`);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(writes('docs/reviews/{id}.md')).toBe('ok');
    expect(writes('../outside.md')).toMatch(/"writes" must not contain "\.\." segments/);
    expect(writes('docs/../../x.md')).toMatch(/"\.\." segments/);
    expect(writes('/etc/cron.d/x')).toMatch(/relative to the project root/);
    expect(writes('~/.bashrc')).toMatch(/relative to the project root/);
    expect(writes('.git/hooks/pre-commit')).toMatch(/inside \.git or \.devx/);
    expect(writes('sub/.GIT/config')).toMatch(/inside \.git or \.devx/);
    expect(writes('.devx/settings.json')).toMatch(/inside \.git or \.devx/);
    const gitKey = (k: string, v: string) => {
      try {
        parse(`name: w\ngit:\n  ${k}: ${JSON.stringify(v)}\nsteps:\n  ONE:\n    role: a\n`);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(gitKey('archiveDir', '../../elsewhere')).toMatch(/"archiveDir" must not contain/);
    expect(gitKey('archiveDir', '.git/hooks')).toMatch(/"archiveDir" must not be inside \.git/);
    expect(gitKey('branchPrefix', '--orphan=')).toMatch(/not starting with "-"/);
    expect(gitKey('branchPrefix', 'feature/')).toBe('ok');

    const root = tempDir('devx-artifact-');
    const outside = tempDir('devx-artifact-out-');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.symlinkSync(outside, path.join(root, 'reports'));
    expect(artifactTargetProblem(root, path.join(root, 'docs', 'a.md'))).toBeNull();
    expect(artifactTargetProblem(root, path.join(root, 'reports', 'a.md'))).toMatch(/resolves outside the project/);
    expect(artifactTargetProblem(root, path.join(root, 'docs', '.env.local'))).toMatch(/protected \(\.env files/);
    fs.symlinkSync(path.join(root, '.git', 'hooks'), path.join(root, 'hooks'));
    expect(artifactTargetProblem(root, path.join(root, 'hooks', 'pre-commit'))).toMatch(/protected/);
  });

  it('accepts a cycle capped on one of its edges even when the workflow default is none', () => {
    const d = parse(
      'name: w\nmaxLoops: none\nsteps:\n  ONE:\n    role: a\n    next: TWO\n  TWO:\n    role: b\n    verdict: approve_reject\n    on:\n      APPROVE: $done\n      REJECT: { to: ONE, maxLoops: 2 }\n',
    );
    expect(d.steps.TWO.transitions.REJECT).toEqual({ to: 'ONE', cap: 2 });
  });

  it('the shipped dev pipeline loads against the shipped roles', () => {
    const file = path.join(__dirname, '..', '..', 'prompts', 'workflows', 'dev-pipeline.yaml');
    const roleFiles = fs.readdirSync(path.join(__dirname, '..', '..', 'prompts', 'agents')).map((f) => f.replace(/\.md$/, ''));
    const d = parseWorkflow(fs.readFileSync(file, 'utf8'), file, 'builtin', (r) => roleFiles.includes(r));
    expect(Object.keys(d.modes)).toEqual(['bugfix', 'research', 'direct']);
    expect(d.steps.CODE.check).toEqual(['commit', 'tests']);
  });
});

describe('the test command', () => {
  const dir = () => tempDir('devx-tc-');
  it("prefers settings, then package.json (not npm init's placeholder), pytest, make, cargo, go", () => {
    const d = dir();
    expect(detectTestCommand(d)).toBeNull();
    expect(detectTestCommand(d, 'make check')).toEqual({ command: 'make check', source: 'settings "testCommand"' });
    fs.writeFileSync(path.join(d, 'package.json'), JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
    expect(detectTestCommand(d)).toBeNull();
    fs.writeFileSync(path.join(d, 'Makefile'), 'build:\n\tcc x.c\ntest: build\n\t./x\n');
    expect(detectTestCommand(d)?.command).toBe('make test');
    fs.writeFileSync(path.join(d, 'pyproject.toml'), '[project]\nname="x"\n');
    expect(detectTestCommand(d)?.command).toBe('python -m pytest -q');
    fs.writeFileSync(path.join(d, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
    expect(detectTestCommand(d)?.command).toBe('npm test');
  });

  it('slugs a request for the branch name', () => {
    expect(slugOf('Login fails after a password reset!')).toBe('login-fails-after-a-password-reset');
    expect(slugOf('???')).toBe('task');
    expect(slugOf('a'.repeat(80)).length).toBe(40);
  });
});
