// PATH entries that are not absolute (`node_modules/.bin`, `.`, `bin`, an empty one) name programs by the
// folder a process is in, and devx and what it starts are in a repository that is not yet trusted: a
// repository's own `git`, `rg` or `bwrap` would run for devx's, outside any sandbox. devx leaves them out.
import path from 'node:path';

/** The entries of `value` that are absolute, in order, and the ones left out. */
export function splitPath(value: string | undefined): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const dir of (value ?? '').split(path.delimiter)) (path.isAbsolute(dir) ? kept : dropped).push(dir);
  return { kept, dropped };
}

/** `env` with PATH's relative entries left out (the same object when it has none). */
export function withAbsolutePath<E extends NodeJS.ProcessEnv>(env: E): E {
  if (env.PATH === undefined) return env;
  const { kept, dropped } = splitPath(env.PATH);
  return dropped.length ? { ...env, PATH: kept.join(path.delimiter) } : env;
}

/**
 * Leaves PATH's relative entries out of this process's own environment, which every program it starts
 * inherits; returns the notice for the person (null when there were none). Empty entries are dropped quietly:
 * `a::b` and a trailing `:` are most often a slip, though they mean the current folder too.
 */
export function dropRelativePath(env: NodeJS.ProcessEnv): string | null {
  if (env.PATH === undefined) return null;
  const { kept, dropped } = splitPath(env.PATH);
  if (!dropped.length) return null;
  env.PATH = kept.join(path.delimiter);
  const named = dropped.filter(Boolean);
  return named.length
    ? `devx: PATH has entries that are not absolute (${named.map((d) => JSON.stringify(d)).join(', ')}); devx leaves them out: in a repository they would name its own programs.\n`
    : null;
}
