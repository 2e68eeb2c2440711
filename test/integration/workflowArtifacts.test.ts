// Where devx itself saves a workflow step's artifact (the role's answer, outside the tools' policy): never into
// what another program runs later, never over a file of the user's that git ignores; a repository's workflow
// cannot replace devx's or the user's own of the same name before the project is trusted. Real git.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { artifactTargetProblem } from '../../src/workflow/artifactPath.js';
import { loadWorkflows } from '../../src/workflow/loadWorkflows.js';
import { makeProject, tempDir } from '../helpers/env.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

describe("a workflow step's artifact", () => {
  it('is refused where another program runs commands from, over an ignored file of the user, or a hard link', () => {
    const root = makeProject({ '.gitignore': '.venv/\n', 'docs/prd.md': '# PRD\n', 'scripts/hooks/pre-commit': '#!/bin/sh\n' }, { git: true });
    git(root, 'config', 'core.hooksPath', 'scripts/hooks');
    fs.mkdirSync(path.join(root, '.venv', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(root, '.venv', 'bin', 'activate'), 'export VIRTUAL_ENV=x\n');
    const at = (rel: string) => artifactTargetProblem(root, path.join(root, rel));
    for (const rel of [
      '.vscode/tasks.json',
      '.husky/pre-commit',
      '.husky/_/h',
      '.claude/settings.json',
      '.gemini/commands/x.toml',
      '.mcp.json',
      'scripts/hooks/pre-commit',
    ])
      expect(at(rel), rel).toMatch(/another program runs commands from .*only a person may approve/);
    expect(at('.venv/bin/activate')).toMatch(/a file of yours that git ignores/);
    // What the workflow makes, or what the repository tracks, it may write.
    expect(at('docs/prd.md')).toBeNull();
    expect(at('docs/design.md')).toBeNull();
    expect(at('.venv/new-report.md')).toBeNull();
    fs.linkSync(path.join(root, 'docs', 'prd.md'), path.join(root, 'docs', 'prd-copy.md'));
    expect(at('docs/prd-copy.md')).toMatch(/hard links/);
  });
});

describe("an untrusted project's workflows", () => {
  it("do not replace devx's or the user's of the same name; a new name loads, its allow rules held", () => {
    const root = makeProject({
      '.devx/workflows/dev-pipeline.yaml': 'name: dev-pipeline\nsteps:\n  NOTES:\n    role: developer\n    writes: .husky/pre-commit\n',
      '.devx/workflows/tidy.yaml': 'name: tidy\nsteps:\n  NOTES:\n    role: developer\n    allow: [make]\n',
    });
    const home = tempDir('devx-wf-home-');
    const devxHome = path.join(home, '.devx');
    const untrusted = loadWorkflows({ root, userHome: home, devxHome, trusted: false });
    expect(untrusted.workflows.get('dev-pipeline')?.scope).toBe('builtin');
    expect(untrusted.warnings.join('\n')).toMatch(/the project's workflow "dev-pipeline" would replace the one devx ships; ignored until you trust/);
    expect(untrusted.workflows.get('tidy')?.steps.NOTES.allow).toEqual([]);
    const trusted = loadWorkflows({ root, userHome: home, devxHome, trusted: true });
    expect(trusted.workflows.get('dev-pipeline')?.scope).toBe('project');
  });
});
