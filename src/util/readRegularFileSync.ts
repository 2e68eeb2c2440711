// Reads a project file devx itself reads at start or on a tool's behalf (MEMORY.md, HANDOFF.md), or
// undefined when it is missing or not a regular file: a FIFO left at that name would otherwise block
// devx's start for good (O_NONBLOCK opens it at once; the type is checked on the opened descriptor).
import fs from 'node:fs';

export function readRegularFileSync(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return undefined;
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
