// Which process-ID space a runner lives in: its host name, the kernel's boot id and its PID namespace.
// A runner of the Postgres queue judges another runner dead by its PID only when both share this space:
// two machines (or containers) with the same host name must not read each other's PIDs as their own.
import fs from 'node:fs';
import os from 'node:os';

let cached: string | undefined;

export function pidSpace(): string {
  if (cached !== undefined) return cached;
  const read = (f: () => string) => {
    try {
      return f().trim();
    } catch {
      return '';
    }
  };
  const boot = read(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const ns = read(() => fs.readlinkSync('/proc/self/ns/pid'));
  return (cached = [os.hostname(), boot, ns].filter(Boolean).join('/'));
}
