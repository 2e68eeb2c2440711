// devx's WebAssembly (the bash parser: policy/bashParser.ts) runs on V8's baseline tier only. By default
// V8 on Node 20 also compiles it with its optimising tier on background threads: CPU spent in every
// process that judges a command, to parse short command lines. `npm run bench` (section "judge")
// measures both; DEVX_WASM_TIERUP=1 keeps V8's default, for that comparison.
import { setFlagsFromString } from 'node:v8';

export function useBaselineWasmTier(env: NodeJS.ProcessEnv = process.env): void {
  if (env.DEVX_WASM_TIERUP !== '1') setFlagsFromString('--liftoff-only');
}
