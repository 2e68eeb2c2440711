// The fast tier's setup file (vitest.config.ts, project "fast"): a test there may start no child process
// and open no socket. Every way to start one throws. Code that catches the error (a runner that turns a
// failed spawn into exit code 127, a probe at load time that then skips its cases) cannot hide it: the same
// error is also thrown outside the caller, where vitest reports it as an error of the file and fails the run,
// and the test that made the attempt fails in afterEach. A file that needs either belongs outside test/unit/.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterEach } from 'vitest';

const attempts: string[] = [];

function forbidden(what: string): never {
  const err = new Error(`the fast tier starts no process and opens no socket: ${what} was called (move the test out of test/unit/)`);
  attempts.push(what);
  process.nextTick(() => {
    throw err;
  });
  throw err;
}

type Patchable = Record<string, unknown>;
const cp = childProcess as unknown as Patchable;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  cp[name] = () => forbidden(`child_process.${name}`);
}
const n = net as unknown as Patchable;
for (const name of ['connect', 'createConnection']) n[name] = () => forbidden(`net.${name}`);
// http, https and tls servers and clients are built on these two, and so is fetch.
net.Server.prototype.listen = function listen(): never {
  return forbidden('net.Server.listen');
};
net.Socket.prototype.connect = function connect(): never {
  return forbidden('net.Socket.connect');
};
// `import { spawn } from 'node:child_process'` binds to the module's ESM exports: bring them in line.
syncBuiltinESMExports();

afterEach(() => {
  const seen = attempts.splice(0);
  if (seen.length > 0) throw new Error(`the fast tier starts no process and opens no socket, but this test called ${[...new Set(seen)].join(', ')}`);
});
