// The enabled extensions, read for the loaders (settings' MCP servers, hooks and tool exclusions; custom
// commands; skills; agents; the context files sent with every prompt). An extension the user installed is
// theirs, like ~/.claude: it loads in every project, trusted or not, and what it brings meets the same policy
// as the user's own files. One that does not read is a warning naming its file and key; the others still load.
import fs from 'node:fs';
import { readBundle } from './readBundle.js';
import { extensionDir, readRecord, recordFile, type ExtensionRecord } from './store.js';
import { EXTENSION_NAME, type Bundle } from './types.js';

export interface LoadedExtensions {
  bundles: Bundle[];
  /** One line per extension (or part of one) that did not load. */
  warnings: string[];
}

/** Every enabled extension in devx's home, used in `workspace` (the project root, Gemini CLI's ${workspacePath}). */
export function loadExtensions(devxHome: string, workspace: string): LoadedExtensions {
  const out: LoadedExtensions = { bundles: [], warnings: [] };
  let record: ExtensionRecord;
  try {
    record = readRecord(devxHome);
  } catch (err) {
    out.warnings.push(`${(err as Error).message}; no extension was loaded (fix the file, or move it aside and install them again)`);
    return out;
  }
  for (const [name, inst] of Object.entries(record.extensions)) {
    if (!inst.enabled) continue;
    const dir = extensionDir(devxHome, name);
    if (!EXTENSION_NAME.test(name) || !fs.existsSync(dir)) {
      out.warnings.push(`extension "${name}" is in ${recordFile(devxHome)}, but ${dir} is not there; run \`devx extensions uninstall ${name}\``);
      continue;
    }
    try {
      const b = readBundle(dir, inst.format, workspace, { fallback: inst.entry });
      out.bundles.push({ ...b, name });
      out.warnings.push(...b.issues.map((i) => `extension "${name}": ${i}`));
    } catch (err) {
      out.warnings.push(`extension "${name}" was not loaded: ${(err as Error).message}`);
    }
  }
  return out;
}
