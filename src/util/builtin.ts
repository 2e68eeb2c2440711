// Node built-ins loaded on first use by the code that runs before the rest of devx (the binary's head
// start and code cache): what they load then is not paid before the model CLI is spawned.
// process.getBuiltinModule (Node 20.16+) loads one without node:module, whose ES module loader has a
// cost of its own; older Nodes use the bundle's own `require`.
interface Builtins {
  'node:child_process': typeof import('node:child_process');
  'node:module': typeof import('node:module');
  'node:vm': typeof import('node:vm');
  'node:zlib': typeof import('node:zlib') & { crc32?: (data: Uint8Array | string, value?: number) => number };
}

export function builtin<K extends keyof Builtins>(id: K): Builtins[K] {
  return (process.getBuiltinModule as ((id: K) => Builtins[K]) | undefined)?.(id) ?? (require(id) as Builtins[K]);
}
