// The process runner's synchronous door (util/processRunner.ts is the asynchronous one), for short
// children whose answer devx needs before it can go on: a git listing for the path policy, the sandbox
// probe, a glob in bash, and the person's editor or picker in the foreground (stdio inherited). Every
// child devx starts goes through one of the two (test/unit/processRunnerOnly.test.ts holds it).
import { spawnSync, type SpawnSyncOptionsWithBufferEncoding, type SpawnSyncOptionsWithStringEncoding, type SpawnSyncReturns } from 'node:child_process';

export type SyncOptions = Omit<SpawnSyncOptionsWithStringEncoding, 'encoding'> & { encoding?: 'utf8' };

/** Runs `file args` to its end; never throws for a failing child (its status and error say so). */
export function runProcessSync(file: string, args: string[], opts: SyncOptions = {}): SpawnSyncReturns<string> {
  return spawnSync(file, args, { ...opts, encoding: 'utf8' });
}

/** As runProcessSync, with the output as bytes (file names that are not UTF-8 stay as they are). */
export function runProcessSyncBytes(file: string, args: string[], opts: Omit<SpawnSyncOptionsWithBufferEncoding, 'encoding'> = {}): SpawnSyncReturns<Buffer> {
  return spawnSync(file, args, { ...opts, encoding: 'buffer' });
}
