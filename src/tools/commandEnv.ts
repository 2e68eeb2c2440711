// The environment a model-run command sees: the user's, minus credentials. A model that can run
// `env` must not be able to read the API keys devx itself was given.
const SECRET_NAME = /(API_KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|SESSION_KEY)/i;

export function commandEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || SECRET_NAME.test(k)) continue;
    out[k] = v;
  }
  out.DEVX = '1';
  return out;
}
