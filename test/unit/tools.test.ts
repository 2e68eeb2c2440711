// The tool wrapper and the tools that start no process (test/integration/tools.test.ts runs commands,
// ripgrep and git, and meets named pipes). search_code here is its JS fallback.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { builtinTools, renderToolManual } from '../../src/tools/registry.js';
import { runToolCall, type ToolCallDeps, type PersonAnswer } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { parseToolCalls } from '../../src/protocol/parseToolCalls.js';
import { searchWithJs } from '../../src/tools/searchFallback.js';
import { formatMatches } from '../../src/tools/searchCode.js';
import { tempDir } from '../helpers/env.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { maskUrlCredentials } from '../../src/tools/maskUrlCredentials.js';

let root: string;
let approvals: PersonAnswer;
let asked: string[];
let policy: PolicyEngine;

const deps = (ctx: Partial<ToolCallDeps['ctx']> = {}): ToolCallDeps =>
  toolDeps(root, policy, {
    rgPath: null,
    ctx,
    approve: (req) => {
      asked.push(String(req.args.cmd ?? req.tool));
      return approvals;
    },
  });

const call = (tool: string, args: Record<string, string>, d = deps()) => runToolCall({ tool, args }, d);

beforeEach(async () => {
  root = tempDir('devx-tools-');
  policy = await makePolicy(root);
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'const a = 1;\nconst b = 2;\nfunction greet(name) {\n  return "Helo " + name;\n}\n');
  approvals = 'yes';
  asked = [];
});

describe('the tool wrapper', () => {
  it('turns an unknown tool into an error listing the known ones', async () => {
    const r = await call('delete_everything', {});
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/unknown tool "delete_everything". Available tools: read_file, write_file/);
  });

  it('turns bad arguments into zod-backed messages', async () => {
    expect((await call('read_file', {})).content).toMatch(/missing required argument "path"/);
    expect((await call('read_file', { path: 'a', offset: 'ten' })).content).toMatch(/argument "offset": expected a whole number/);
    expect((await call('read_file', { path: 'a', colour: 'red' })).content).toMatch(/unknown argument\(s\) "colour"/);
    expect((await call('edit_file', { path: 'a', old_text: 'x', new_text: 'y', replace_all: 'yes' })).content).toMatch(/expected true or false/);
  });

  it('denies paths outside the root before the tool runs', async () => {
    const r = await call('write_file', { path: '../escape.txt', content: 'x' });
    expect(r.status).toBe('error');
    expect(r.decision?.rule).toBe('path:outside-root');
    expect(fs.existsSync(path.join(root, '..', 'escape.txt'))).toBe(false);
  });

  it('truncates huge output with a marker', async () => {
    fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(200_000));
    const d = deps();
    d.maxOutputChars = 5000;
    const r = await runToolCall({ tool: 'read_file', args: { path: 'big.txt' } }, d);
    expect(r.content.length).toBeLessThan(5200);
    // The rest is kept in a file the model is told about, and can read from where the cut is.
    const m =
      /\[truncated: the first line alone is 100000 characters \(100000 in all\)\. The whole output is saved in (\.devx\/tool-output\/read_file-[^;]+\.txt); find what you need in it with search_code \| path=\1\]/.exec(
        r.content,
      );
    expect(m, r.content.slice(-300)).not.toBeNull();
    expect(fs.readFileSync(path.join(root, m![1]), 'utf8')).toContain('x'.repeat(100_000));
  });

  it('cuts command output at both ends and keeps all of it in a file', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i}`).join('\n');
    const { limitOutput } = await import('../../src/tools/limitOutput.js');
    let saved = '';
    const out = limitOutput(lines, { maxChars: 2000, keep: 'head-tail' }, (full) => ((saved = full), '.devx/tool-output/x.txt'));
    expect(out.length).toBeLessThan(2100);
    expect(out.startsWith('line 0\n')).toBe(true);
    expect(out.endsWith('line 29999')).toBe(true);
    expect(out).toMatch(/\[truncated: \d+ of 30000 lines .* omitted here\. The whole output is saved in \.devx\/tool-output\/x\.txt/);
    expect(saved).toBe(lines);
    expect(
      limitOutput('short', { maxChars: 2000 }, () => {
        throw new Error('not called');
      }),
    ).toBe('short');
  });

  it('every manual example parses and validates against its schema', () => {
    for (const tool of builtinTools()) {
      const parsed = parseToolCalls(tool.example);
      expect(parsed.errors, tool.name).toEqual([]);
      expect(parsed.calls).toHaveLength(1);
      expect(parsed.calls[0].tool).toBe(tool.name);
      expect((tool.schema as any).strict().safeParse(parsed.calls[0].args).success, tool.name).toBe(true);
    }
    const manual = renderToolManual(builtinTools());
    expect(manual).toContain('`edit_file | path | old_text | new_text | [replace_all]`');
  });
});

describe('read_file', () => {
  it('reads with offset and limit, marking truncation', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    fs.writeFileSync(path.join(root, 'l.txt'), lines);
    const r = await call('read_file', { path: 'l.txt', offset: '10', limit: '5' });
    expect(r.status).toBe('ok');
    expect(r.content.split('\n').slice(0, 5)).toEqual(['line 10', 'line 11', 'line 12', 'line 13', 'line 14']);
    expect(r.content).toContain('[truncated: showing lines 10-14 of 50; continue with offset=15]');
  });

  it('refuses binary files, directories and missing files with useful messages', async () => {
    fs.writeFileSync(path.join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect((await call('read_file', { path: 'img.png' })).content).toMatch(/binary/);
    expect((await call('read_file', { path: 'src' })).content).toMatch(/is a directory; use list_directory/);
    expect((await call('read_file', { path: 'nope.ts' })).content).toMatch(/file not found: nope.ts/);
    expect((await call('read_file', { path: 'src/main.ts', offset: '99' })).content).toMatch(/past the end/);
  });
});

describe('write_file', () => {
  it('creates parent directories and writes atomically', async () => {
    const r = await call('write_file', { path: 'deep/er/file.txt', content: 'hello\n' });
    expect(r.status).toBe('ok');
    expect(r.content).toMatch(/created deep\/er\/file.txt/);
    expect(fs.readFileSync(path.join(root, 'deep/er/file.txt'), 'utf8')).toBe('hello\n');
    expect(fs.readdirSync(path.join(root, 'deep/er'))).toEqual(['file.txt']);
  });
});

describe('edit_file', () => {
  it('a fenced old_text (which ends with a newline) still matches the last line of a file without one', async () => {
    fs.writeFileSync(path.join(root, 'tail.txt'), 'first\nlast');
    const r = await call('edit_file', { path: 'tail.txt', old_text: 'last\n', new_text: 'LAST\n' });
    expect(r.status, r.content).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'tail.txt'), 'utf8')).toBe('first\nLAST');
  });

  it('replaces an exact unique match', async () => {
    const r = await call('edit_file', { path: 'src/main.ts', old_text: 'return "Helo "', new_text: 'return "Hello "' });
    expect(r.status).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'src/main.ts'), 'utf8')).toContain('return "Hello " + name;');
  });

  it('refuses ambiguous matches unless replace_all=true', async () => {
    const r = await call('edit_file', { path: 'src/main.ts', old_text: 'const', new_text: 'let' });
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/found 2 matches for old_text in src\/main.ts; add surrounding lines/);
    const all = await call('edit_file', { path: 'src/main.ts', old_text: 'const', new_text: 'let', replace_all: 'true' });
    expect(all.status).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'src/main.ts'), 'utf8')).toMatch(/^let a = 1;\nlet b = 2;/);
  });

  it('shows the closest lines when nothing matches', async () => {
    const r = await call('edit_file', { path: 'src/main.ts', old_text: 'function greet(nam) {\n  return "Helo" + name;', new_text: 'x' });
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/old_text was not found in src\/main.ts. The closest lines are 3-4/);
    expect(r.content).toContain('  return "Helo " + name;');
  });

  it('matches LF old_text in a CRLF file and keeps CRLF endings', async () => {
    fs.writeFileSync(path.join(root, 'w.txt'), 'a\r\nb\r\nc\r\n');
    const r = await call('edit_file', { path: 'w.txt', old_text: 'a\nb', new_text: 'A\nB' });
    expect(r.status).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'w.txt'), 'utf8')).toBe('A\r\nB\r\nc\r\n');
  });

  it('treats $ patterns in new_text literally', async () => {
    await call('edit_file', { path: 'src/main.ts', old_text: 'const a = 1;', new_text: "const a = '$&$1';" });
    expect(fs.readFileSync(path.join(root, 'src/main.ts'), 'utf8')).toContain("const a = '$&$1';");
  });
});

describe('list_directory and glob', () => {
  it('lists directories first with types and sizes', async () => {
    fs.writeFileSync(path.join(root, 'z.txt'), '12345');
    const r = await call('list_directory', { path: '.' });
    expect(r.content.split('\n')).toEqual(['src/ dir', 'z.txt file 5 bytes']);
  });

  it('globs inside the root and rejects escaping patterns', async () => {
    fs.mkdirSync(path.join(root, 'node_modules/x'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules/x/i.ts'), '');
    expect((await call('glob', { pattern: '**/*.ts' })).content).toBe('src/main.ts');
    expect((await call('glob', { pattern: '../**' })).status).toBe('error');
    expect((await call('glob', { pattern: '*.ts', path: 'src' })).content).toBe('main.ts');
  });
});

describe('search_code', () => {
  beforeEach(() => {
    fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
    fs.mkdirSync(path.join(root, 'dist'));
    fs.writeFileSync(path.join(root, 'dist/out.js'), 'const TODO = 1;\n');
    fs.writeFileSync(path.join(root, 'debug.log'), 'TODO in a log\n');
    fs.writeFileSync(path.join(root, '.hidden'), 'TODO hidden\n');
    fs.writeFileSync(path.join(root, 'src/b.ts'), '// TODO: first\nx\n// TODO second\n');
    fs.writeFileSync(path.join(root, 'src/bin.dat'), Buffer.from('TODO\u0000binary'));
    fs.mkdirSync(path.join(root, '.git'));
  });

  it('formats matches; the tool wrapper shows the first 200 and saves the rest', async () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ path: 'a', line: i + 1, text: 'x\n' }));
    expect(formatMatches(many, 'x').split('\n')).toHaveLength(250);
    fs.writeFileSync(path.join(root, 'many.txt'), Array.from({ length: 250 }, () => 'needle').join('\n'));
    const r = await call('search_code', { pattern: 'needle', path: 'many.txt' }, deps({ rgPath: null }));
    expect(r.content.split('\n').filter((l) => l.includes('needle'))).toHaveLength(200);
    expect(r.content).toMatch(/\[truncated: showing 200 of 250 lines .*read the rest with read_file \| path=\.devx\/tool-output\/search_code-.*offset=201\]/);
    expect((await searchWithJs(root, root, 'TODO', undefined, 1000)).matches.map((m) => m.path)).toEqual(['src/b.ts', 'src/b.ts']);
  });
});

describe('run_command', () => {
  it('does not run a declined command', async () => {
    approvals = 'no';
    const r = await call('run_command', { cmd: 'touch made' });
    expect(r.content).toMatch(/the user declined/);
    expect(fs.existsSync(path.join(root, 'made'))).toBe(false);
  });
});

describe('maskUrlCredentials', () => {
  it('masks URL passwords and token user names, and leaves other URLs and addresses alone', () => {
    const cases: [string, string][] = [
      ['https://user:s3cret@example.com/x', 'https://user:***@example.com/x'],
      ['postgres://app:p%40ss@db.local:5432/app', 'postgres://app:***@db.local:5432/app'],
      ['https://glpat-abcdefghij0123456789@gitlab.com/g/p.git', 'https://***@gitlab.com/g/p.git'],
      ['https://ghp_0123456789abcdefABCDEF0123456789abcd:x-oauth-basic@github.com/', 'https://***:***@github.com/'],
      ['redis://:onlypassword@cache:6379', 'redis://:***@cache:6379'],
      ['ssh://git@github.com/o/r.git', 'ssh://git@github.com/o/r.git'],
      ['mail me at dev@example.com or see https://example.com/a@b', 'mail me at dev@example.com or see https://example.com/a@b'],
      ['https://deploy@host/x and http://u:p@h', 'https://deploy@host/x and http://u:***@h'],
    ];
    for (const [input, want] of cases) expect(maskUrlCredentials(input).text, input).toBe(want);
    expect(maskUrlCredentials('a https://u:p@h b https://u:q@h').count).toBe(2);
  });
});
