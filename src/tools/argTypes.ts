// Zod helpers for protocol arguments, which always arrive as strings.
import * as z from 'zod';

export const intArg = (desc: string, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\s*\d+\s*$/, 'expected a whole number')
    .transform((s) => Number(s))
    .pipe(z.number().int().min(min).max(max))
    .describe(desc);

export const boolArg = (desc: string) =>
  z
    .enum(['true', 'false'], { message: 'expected true or false' })
    .transform((s) => s === 'true')
    .describe(desc);

export const pathArg = (desc: string) => z.string().describe(desc);
