// `@path` imports in agent bodies: a line holding only `@some/file.md` is replaced by that file,
// resolved relative to the importing file (or `~/`). Imports nest; a cycle is an error naming the chain.
// An agent file may come with a cloned repository, so what it can pull into a prompt (which goes to the
// model) is bounded: only regular files (a FIFO or /dev/zero would hang or fill memory at every start),
// at most MAX_IMPORT_BYTES, never a file the path policy protects (keys, .env, cloud credentials), and for
// a project's own agents only files inside the project or, named with `~/`, the user's own files in the
// agent folders (~/.claude, ~/.devx, ~/.gemini: Claude Code's `@~/.claude/...` pattern). A cloned
// repository's agent cannot pull ~/.bashrc or a path outside the project into a prompt.
import fs from 'node:fs';
import path from 'node:path';
import { outsideOrProtected } from '../policy/pathPolicy.js';
import { readRegularFileOrThrow } from '../util/readRegularFileSync.js';

const IMPORT = /^[ \t]*@((?:~\/|\.{0,2}\/)?[^\s@][^\s]*)[ \t]*$/;
export const MAX_IMPORT_BYTES = 256 * 1024;
/** Where a project's agent may import the user's own files from (written `@~/.claude/...`). */
const AGENT_HOME_DIRS = ['.claude', '.devx', '.gemini'];

export interface ImportScope {
  home: string;
  /** The project root, when the importing agent is the project's: imports must stay inside it. */
  projectRoot?: string;
  /** The user trusted that project (`devx trust`): only then may its agents import from the home folder. */
  trusted?: boolean;
}

/** Under ~/.claude, ~/.gemini and ~/.devx only prompt files are importable: Markdown, never their state. */
const STATE_PARTS = new Set([
  'tmp',
  'history',
  'projects',
  'logs',
  'knowledge',
  'cache',
  'todos',
  'shell-snapshots',
  'statsig',
  'ide',
  'sessions',
  'runs',
  'sandbox',
  'run',
]);
function homeStateProblem(file: string, home: string): string | null {
  const real = (() => {
    try {
      return fs.realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  })();
  const dir = AGENT_HOME_DIRS.map((d) => path.join(home, d)).find((d) => real === d || real.startsWith(`${d}${path.sep}`));
  if (!dir) return null;
  const parts = path.relative(dir, real).split(path.sep);
  if (!/\.md$/i.test(real))
    return `${file} is not a Markdown file; from ${path.basename(dir)}/ only prompt files (agents, snippets, memory) can be imported, never settings, histories, logs or credentials`;
  if (parts.some((p) => STATE_PARTS.has(p))) return `${file} is in ${path.basename(dir)}/${parts[0]}/, the tool's own state; only prompt files can be imported`;
  return null;
}

/** Reads an agent file, an import or a memory file under the rules above; errors name the file and the rule. */
export function readAgentText(file: string, scope: ImportScope, shown = file, namedFromHome = false): string {
  if (!fs.existsSync(file)) throw new Error(`not found: ${shown}`);
  if (namedFromHome && scope.projectRoot && !scope.trusted) {
    throw new Error(`${shown}: this project's agents may import from your home folder only once you trust the project (\`devx trust\`)`);
  }
  const state = homeStateProblem(file, scope.home);
  if (state) throw new Error(state);
  // The user's own agents may import from anywhere (the filesystem root bounds nothing); a project's are bounded.
  const roots = !scope.projectRoot
    ? [path.parse(path.resolve(file)).root]
    : namedFromHome
      ? AGENT_HOME_DIRS.map((d) => path.join(scope.home, d))
      : [scope.projectRoot];
  const problem = outsideOrProtected(file, roots, 'read', shown);
  if (problem) {
    const hint =
      problem.why === 'outside'
        ? `a project's agents import only files inside it, or yours from ${AGENT_HOME_DIRS.map((d) => `~/${d}/`).join(', ')}`
        : 'agents cannot import it';
    throw new Error(`${problem.reason}; ${hint}`);
  }
  return readRegularFileOrThrow(file, shown, MAX_IMPORT_BYTES);
}

export function resolveImports(text: string, fromFile: string, scope: ImportScope, chain: string[] = [fromFile]): string {
  if (chain.length > 20) throw new Error(`imports nest deeper than 20 files: ${chain.join(' -> ')}`);
  let fence = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const m = fence ? null : IMPORT.exec(line);
      if (!m || !/[/.]/.test(m[1])) return line; // "@someone" in prose is not an import
      const target = m[1].startsWith('~/') ? path.join(scope.home, m[1].slice(2)) : path.resolve(path.dirname(fromFile), m[1]);
      if (chain.includes(target)) throw new Error(`import cycle: ${[...chain, target].map((f) => path.basename(f)).join(' -> ')}`);
      if (!fs.existsSync(target)) throw new Error(`import not found: ${m[1]} (from ${path.basename(fromFile)})`);
      const body = readAgentText(target, scope, `import ${m[1]} (from ${path.basename(fromFile)})`, m[1].startsWith('~/'));
      return resolveImports(body, target, scope, [...chain, target]).replace(/\n$/, '');
    })
    .join('\n');
}
