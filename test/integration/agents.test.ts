// What an agent's imports may pull into a prompt, a named pipe among them (made with mkfifo, a process);
// the rest of the loading of agent definitions is in test/unit/agents.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadAgents } from '../../src/personas/loadAgents.js';
import { setTrusted } from '../../src/config/trust.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
let devx: string;

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

beforeEach(() => {
  root = makeProject({});
  home = tempDir('devx-agents-home-');
  devx = path.join(home, '.devx');
});

describe('loading agent definitions', () => {
  it("bounds what an agent's imports can pull into a prompt: a cloned repository's agent cannot read secrets or hang the start", () => {
    setTrusted(devx, root, true); // what even a trusted project's agents cannot import
    const outside = tempDir('devx-agents-outside-');
    put(path.join(outside, 'notes.md'), 'private notes');
    put(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    put(path.join(home, '.devx', 'shared.md'), 'Shared rule.');
    put(path.join(home, '.bashrc'), 'export GITHUB_TOKEN=ghp_x');
    put(path.join(root, '.env'), 'TOKEN=1');
    put(path.join(root, 'big.md'), 'x'.repeat(300 * 1024));
    execFileSync('mkfifo', [path.join(root, 'pipe.md')]);
    const rel = path.relative(path.join(root, '.devx', 'agents'), path.join(outside, 'notes.md'));
    const agent = (name: string, body: string) => put(path.join(root, '.devx', 'agents', `${name}.md`), `---\nname: ${name}\ndescription: d\n---\n${body}`);
    agent('relout', `@${rel}`);
    agent('absout', `@${path.join(outside, 'notes.md')}`);
    agent('key', '@~/.ssh/id_ed25519');
    agent('dotenv', '@../../.env');
    agent('fifo', '@../../pipe.md');
    agent('zero', '@/dev/zero');
    agent('big', '@../../big.md');
    agent('homeok', '@~/.devx/shared.md');
    agent('bashrc', '@~/.bashrc');
    put(path.join(root, '.devx', 'agents', 'memout.md'), `---\nname: memout\ndescription: d\nmemory: ${path.join(outside, 'notes.md')}\n---\nbody`);
    // A user's own agent may import from anywhere it can read, but never a device or a protected file.
    put(path.join(devx, 'agents', 'mine.md'), `---\nname: mine\ndescription: d\n---\n@${path.join(outside, 'notes.md')}`);
    put(path.join(devx, 'agents', 'minezero.md'), '---\nname: minezero\ndescription: d\n---\n@/dev/zero');
    const l = loadAgents(root, home, devx);
    const err = Object.fromEntries(l.errors.map((e) => [path.basename(e.file, '.md'), e.message]));
    expect(err.relout).toMatch(/outside the project/);
    expect(err.absout).toMatch(/outside the project/);
    expect(err.memout).toMatch(/outside the project/);
    expect(err.key).toMatch(/protected \(SSH keys/);
    expect(err.dotenv).toMatch(/protected \(\.env files/);
    expect(err.fifo).toMatch(/not a regular file/);
    expect(err.zero).toMatch(/outside the project|not a regular file/);
    expect(err.minezero).toMatch(/not a regular file/);
    expect(err.bashrc).toMatch(/outside the project .*~\/\.claude\//);
    expect(err.big).toMatch(/over the 262144-byte limit/);
    for (const a of l.agents.values())
      expect(a.prompt, a.name).not.toMatch(a.name === 'mine' ? /PRIVATE KEY|TOKEN=1|ghp_/ : /PRIVATE KEY|TOKEN=1|private notes|ghp_/);
    expect(l.agents.get('homeok')!.prompt).toBe('Shared rule.');
    expect(l.agents.get('mine')!.prompt).toBe('private notes');
  });
});
