// How many tokens a model's context window holds, for the context meter (/context). Published figures;
// a model not listed has none (the meter then shows devx's own budget only).
const WINDOWS: [RegExp, number][] = [
  [/^gemini-1\.5-pro/, 2_097_152],
  [/^gemini-/, 1_048_576],
  [/^(claude-|sonnet|opus|haiku)/, 200_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^(gpt-5|codex-)/, 400_000],
  [/^(o3|o4)/, 200_000],
];

/** The model's context window in tokens, or null when devx does not know it. */
export function contextWindow(model: string): number | null {
  const m = model.toLowerCase().replace(/^models\//, '');
  return WINDOWS.find(([re]) => re.test(m))?.[1] ?? null;
}
