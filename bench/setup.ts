// Start-up with a person's setup: devx's own start of a session (AgentRun.create, in
// process, scripted model: no model CLI) with 50 custom commands, 10 skills and 5 MCP servers configured,
// against none, measured in the same run (the servers start in the background: the first turn waits for
// them, not the start); and the servers' start to ready, in parallel, against one server.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AgentRun } from '../src/runtime/agentRun.js';
import { ScriptedBackend } from '../src/providers/scripted.js';
import { REPO_ROOT, makeProject, tempDir } from '../test/helpers/env.js';
import { median } from './timing.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything');

function homeWith(opts: { commands: number; skills: number; servers: number }): string {
  const home = tempDir('devx-bench-setup-');
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  };
  for (let i = 0; i < opts.commands; i++) {
    if (i % 2)
      put(`.gemini/commands/group${i % 5}/cmd${i}.toml`, `description = "Command ${i}"\nprompt = """Do thing ${i} with {{args}}.\n!{git status --short}"""\n`);
    else put(`.claude/commands/cmd${i}.md`, `---\ndescription: Command ${i}\nargument-hint: <file>\n---\nReview $ARGUMENTS for ${i}.\n`);
  }
  for (let i = 0; i < opts.skills; i++)
    put(`.claude/skills/skill${i}/SKILL.md`, `---\nname: skill${i}\ndescription: Use for task kind ${i}\n---\n# Skill ${i}\nSteps.\n`);
  const servers = Object.fromEntries(
    Array.from({ length: opts.servers }, (_, i) => [`s${i}`, { command: EVERYTHING, args: ['stdio'], includeTools: ['echo'] }]),
  );
  put('.devx/settings.json', JSON.stringify({ mcpServers: servers }));
  return home;
}

/**
 * ms to a session; with `timeReady`, to its MCP servers' tools being there too. The servers always
 * really start (the run waits for them before it ends), so their start costs what it costs, just not
 * inside devx's own start-up.
 */
async function startOnce(home: string, project: string, timeReady = false): Promise<number> {
  const t0 = performance.now();
  const run = await AgentRun.create({ cwd: project, env: { PATH: process.env.PATH, HOME: home }, backend: new ScriptedBackend([]), history: 'project' });
  let ms = performance.now() - t0;
  await run.ready();
  if (timeReady) ms = performance.now() - t0;
  await run.dispose();
  return ms;
}

export async function benchSetup(): Promise<void> {
  const runs = Number(process.env.BENCH_SETUP_RUNS ?? 15);
  const project = makeProject({});
  const none = homeWith({ commands: 0, skills: 0, servers: 0 });
  const full = homeWith({ commands: 50, skills: 10, servers: 5 });
  await startOnce(none, project); // warm the module cache
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await startOnce(none, project));
    b.push(await startOnce(full, project));
  }
  const base = median(a);
  const withSetup = median(b);
  console.log(
    `setup: a session's start with 50 custom commands, 10 skills and 5 MCP servers ${withSetup.toFixed(1)} ms vs none ${base.toFixed(1)} ms -> +${(withSetup - base).toFixed(1)} ms, ratio ${(withSetup / base).toFixed(2)} (target: +20 ms at most; medians of ${runs}, interleaved)`,
  );
  const one = homeWith({ commands: 0, skills: 0, servers: 1 });
  const five = homeWith({ commands: 0, skills: 0, servers: 5 });
  const s1: number[] = [];
  const s5: number[] = [];
  for (let i = 0; i < 5; i++) {
    s1.push(await startOnce(one, project, true));
    s5.push(await startOnce(five, project, true));
  }
  console.log(
    `setup: 5 MCP servers ready in ${median(s5).toFixed(0)} ms vs 1 in ${median(s1).toFixed(0)} ms -> ratio ${(median(s5) / median(s1)).toFixed(2)} (in parallel: well under 5; medians of 5)`,
  );
}
