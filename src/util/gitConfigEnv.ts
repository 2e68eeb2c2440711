// git reads `GIT_CONFIG_COUNT` entries from the environment above every config file; devx adds its own
// after any the environment already holds.

/** `env` with `entries` added as GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n (a copy; `env` is not changed). */
export function withGitConfig<T extends Record<string, string | undefined>>(env: T, entries: [string, string][]): T {
  const out: Record<string, string | undefined> = { ...env };
  const n = Number(out.GIT_CONFIG_COUNT);
  let i = Number.isInteger(n) && n >= 0 ? n : 0;
  for (const [k, v] of entries) {
    out[`GIT_CONFIG_KEY_${i}`] = k;
    out[`GIT_CONFIG_VALUE_${i}`] = v;
    i++;
  }
  out.GIT_CONFIG_COUNT = String(i);
  return out as T;
}
