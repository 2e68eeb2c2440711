// Which format a folder is (a Gemini CLI extension, a Claude Code plugin) and the bundle it holds.
import fs from 'node:fs';
import path from 'node:path';
import { GEMINI_MANIFEST, readGeminiBundle } from './geminiManifest.js';
import { CLAUDE_MANIFEST, readClaudeBundle, type PluginFallback } from './claudeManifest.js';
import { ManifestError, type Bundle, type BundleFormat } from './types.js';

/** The formats whose manifest is in `dir`, Gemini CLI's first. */
export function formatsIn(dir: string): BundleFormat[] {
  return [
    ...(fs.existsSync(path.join(dir, GEMINI_MANIFEST)) ? (['gemini'] as const) : []),
    ...(fs.existsSync(path.join(dir, CLAUDE_MANIFEST)) ? (['claude'] as const) : []),
  ];
}

/** The format to read `dir` as: the one asked for, else the one it has (Gemini CLI's when it has both). */
export function chooseFormat(dir: string, asked?: BundleFormat): BundleFormat {
  const found = formatsIn(dir);
  if (asked) {
    if (!found.includes(asked))
      throw new ManifestError(path.join(dir, asked === 'gemini' ? GEMINI_MANIFEST : CLAUDE_MANIFEST), '', 'not found (asked for by --format)');
    return asked;
  }
  if (!found.length) throw new ManifestError(dir, '', `has neither ${GEMINI_MANIFEST} (a Gemini CLI extension) nor ${CLAUDE_MANIFEST} (a Claude Code plugin)`);
  return found[0];
}

/**
 * The bundle in `dir` in that format, used in `workspace`; a Claude plugin from a marketplace may have only its
 * entry to name it. `installedAt`: the folder its variables name (its copy's, while it is being installed).
 */
export function readBundle(dir: string, format: BundleFormat, workspace: string, o: { fallback?: PluginFallback; installedAt?: string } = {}): Bundle {
  return format === 'gemini' ? readGeminiBundle(dir, workspace, o.installedAt) : readClaudeBundle(dir, o.fallback, o.installedAt);
}
