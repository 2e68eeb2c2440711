// The context files enabled extensions bring (Gemini CLI's contextFileName, GEMINI.md by default): each is
// sent with every prompt under a heading naming its extension, as MEMORY.md is. A file devx will not read
// (too large, not a regular file) is left out.
import path from 'node:path';
import { READ_LIMITS, readRegularFileSync } from '../util/readRegularFileSync.js';
import { loadExtensions } from './loadExtensions.js';

export interface ContextSection {
  title: string;
  text: string;
}

export function readExtensionContext(devxHome: string, workspace: string): ContextSection[] {
  return loadExtensions(devxHome, workspace).bundles.flatMap((b) =>
    b.contextFiles.flatMap((f) => {
      const text = readRegularFileSync(f, { maxBytes: READ_LIMITS.note });
      return text?.trim() ? [{ title: `Context from extension ${b.name} (${path.relative(b.dir, f)})`, text }] : [];
    }),
  );
}
