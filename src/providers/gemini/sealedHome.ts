// The home devx's gemini calls run with (GEMINI_CLI_HOME), sealed from the person's own Gemini CLI
// setup. gemini 0.61 finds everything it reads about a person under one folder: `homedir()` is
// $GEMINI_CLI_HOME, else the OS home (packages/core utils/paths.ts), and below it `.gemini/` holds the
// user settings (hooks, mcpServers, tools.discoveryCommand, context.fileName, policyPaths...), the
// GEMINI.md context files, extensions/, commands/, skills/, agents/, policies/, and `.agents/skills`
// sits beside it. A home of devx's own closes all of these at once, and whatever gemini adds there later.
//
// What carries over is the person's login, and nothing else:
// - the auth files, as symbolic links (never copies): gemini writes a refreshed OAuth token with
//   writeFile, which follows the link, so the refresh lands in the person's own file and their own
//   gemini keeps working with it; no secret is ever duplicated. They are `.gemini/oauth_creds.json`,
//   `google_accounts.json`, `gemini-credentials.json` (the encrypted-file keychain: OAuth with
//   GEMINI_FORCE_ENCRYPTED_FILE_STORAGE, a key saved through /auth) and `.gemini/.env` and `.env`
//   (where gemini looks for GEMINI_API_KEY, GOOGLE_CLOUD_PROJECT... once its search reaches the home);
// - the auth selection of the user settings, `security.auth` (selectedType, enforcedType, useExternal).
// Environment auth (GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT...) passes as it is.
//
// The sealed settings add devx's own choices for its calls: no hooks, no MCP servers, no usage
// statistics, telemetry or update checks, and no memory-file search above gemini's scratch folder (an
// ancestor holding .git, such as a home kept in git, would otherwise bring its GEMINI.md files in).
//
// The seal is a folder under ~/.devx/gemini-home (mode 0700) named by a hash of what it holds: the
// source home, the settings it writes and the links. When the person's auth changes (a file appears or
// goes, the auth selection changes), the name changes and a new seal is made; the same name always
// holds the same content, so a gemini started ahead by the next run (util/prestart) from a recorded
// launch reads exactly what devx would give it, and is adopted only when its GEMINI_CLI_HOME matches.
// gemini keeps its own state there too (projects.json, tmp/, history/: before, in the person's
// ~/.gemini); the entries of devx's scratch folders that are gone are pruned (pruneProjects).
//
// Not sealable this way: gemini 0.61 reads `os.homedir()/.gemini/policies/sandbox.toml` directly (its
// tool-sandbox policy, moot under devx's deny-all policy); changing HOME instead would also move
// ~/.config/gcloud, where Vertex and ADC logins live.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { devxHome } from '../../util/devxHome.js';
import { writeStateSync } from '../../util/atomicWrite.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';
import lockfile from 'proper-lockfile';

/** Files in `<home>/.gemini` that carry a login. */
export const GEMINI_AUTH_FILES = ['oauth_creds.json', 'google_accounts.json', 'gemini-credentials.json', '.env'] as const;

/** devx's own settings for its gemini calls; the person's `security.auth` is added to them. */
export const SEALED_SETTINGS = {
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  hooksConfig: { enabled: false },
  mcpServers: {},
  context: { memoryBoundaryMarkers: [] as string[], loadMemoryFromIncludeDirectories: false },
} as const;

/** The home gemini would use with this environment: $GEMINI_CLI_HOME, else $HOME, else the OS's. */
export function geminiHomeOf(env: Record<string, string | undefined>): string {
  return path.resolve(env.GEMINI_CLI_HOME || env.HOME || os.homedir());
}

/** What a sealed home holds: its settings.json text and its links (path inside the seal -> target). */
export interface SealPlan {
  source: string;
  settings: string;
  links: [string, string][];
}

/** Reads what the seal for `source` must hold, from the person's files as they are now. */
export function sealPlan(source: string): SealPlan {
  const g = path.join(source, '.gemini');
  const auth = authSelection(path.join(g, 'settings.json'));
  const settings = `${JSON.stringify(auth ? { ...SEALED_SETTINGS, security: { auth } } : SEALED_SETTINGS, null, 2)}\n`;
  const links: [string, string][] = [];
  for (const f of GEMINI_AUTH_FILES) if (isFile(path.join(g, f))) links.push([path.join('.gemini', f), path.join(g, f)]);
  if (isFile(path.join(source, '.env'))) links.push(['.env', path.join(source, '.env')]);
  return { source, settings, links };
}

/**
 * The sealed GEMINI_CLI_HOME for a gemini launched with `env` (devx's environment with the account's),
 * made or checked now. It lives in the devx home that owns `workDir`; a backend given a work folder of
 * its own elsewhere (tests, embedders) keeps it in that folder.
 */
export function sealedGeminiHome(env: Record<string, string | undefined>, workDir: string): string {
  const effective = { ...process.env, ...env };
  const owner = devxHome(effective);
  const inOwner = path.resolve(workDir).startsWith(path.resolve(owner) + path.sep);
  const root = path.join(inOwner ? owner : workDir, 'gemini-home');
  const plan = sealPlan(geminiHomeOf(effective));
  const key = crypto.createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
  const dir = path.join(root, key);
  buildSeal(dir, plan);
  if (!pruned.has(dir)) {
    pruned.add(dir);
    pruneProjects(path.join(dir, '.gemini'));
  }
  return dir;
}

const pruned = new Set<string>();

/**
 * Registered folders a seal keeps before the ones that are gone are dropped. Each start of gemini reads the
 * ownership marker of every one (tmp/<id> and history/<id>) before it registers its own new folder, so each
 * start slowed as one-shot runs accumulated (`npm run bench`, "one-shot process", runs devx many times in one folder).
 */
export const PRUNE_PROJECTS_AT = 8;

/**
 * gemini registers every folder it runs in (`projects.json`, and `tmp/<id>`, `history/<id>` for each),
 * and devx's scratch folders are new for every run and removed after it; in a seal that outlives runs,
 * the entries of folders that are gone are dropped once there are several (once per seal per process),
 * under gemini's own registry lock so that a gemini registering its folder now keeps its entry.
 */
function pruneProjects(geminiDir: string): void {
  const file = path.join(geminiDir, 'projects.json');
  let release: () => void;
  try {
    if (Object.keys(readProjects(file)?.projects ?? {}).length < PRUNE_PROJECTS_AT) return;
    release = lockfile.lockSync(file);
  } catch {
    return; // no registry, or a gemini holds it: the next start prunes
  }
  try {
    const data = readProjects(file);
    const projects = data?.projects;
    if (!projects) return;
    const kept: Record<string, unknown> = {};
    for (const [root, id] of Object.entries(projects)) {
      if (typeof id !== 'string' || fs.existsSync(root)) {
        kept[root] = id;
        continue;
      }
      if (id !== path.basename(id) || id === '.' || id === '..' || id === '') continue;
      for (const d of ['tmp', 'history']) fs.rmSync(path.join(geminiDir, d, id), { recursive: true, force: true });
    }
    if (Object.keys(kept).length < Object.keys(projects).length) writeStateSync(file, `${JSON.stringify({ ...data, projects: kept }, null, 2)}\n`);
  } finally {
    release();
  }
}

/** gemini's registry, or null when it is missing or not JSON. */
function readProjects(file: string): { projects?: Record<string, unknown> } | null {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { projects?: unknown } | null;
    return data && typeof data.projects === 'object' && data.projects !== null ? (data as { projects: Record<string, unknown> }) : null;
  } catch {
    return null;
  }
}

/** Makes `dir` hold exactly the plan's settings and links, touching only what differs (a gemini may be reading it). */
function buildSeal(dir: string, plan: SealPlan): void {
  mkdirOwnedSync(path.join(dir, '.gemini'), 0o700);
  for (const d of [path.dirname(dir), dir, path.join(dir, '.gemini')]) {
    if ((fs.statSync(d).mode & 0o077) !== 0) fs.chmodSync(d, 0o700);
  }
  const settingsFile = path.join(dir, '.gemini', 'settings.json');
  if (readOrNull(settingsFile) !== plan.settings) writeStateSync(settingsFile, plan.settings);
  for (const [rel, target] of plan.links) {
    const link = path.join(dir, rel);
    if (linkTarget(link) === target) continue;
    // A new link beside it, renamed over: a reader sees the old entry or the new link, never none.
    const tmp = `${link}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    fs.symlinkSync(target, tmp);
    try {
      fs.renameSync(tmp, link);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}

/** The `security.auth` object of a gemini settings file (JSON with comments), or undefined. */
function authSelection(file: string): Record<string, unknown> | undefined {
  const text = readOrNull(file);
  if (text === null) return undefined;
  try {
    const auth = (JSON.parse(stripJsonComments(text)) as { security?: { auth?: unknown } } | null)?.security?.auth;
    return auth && typeof auth === 'object' && !Array.isArray(auth) ? (auth as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `//` and block comments outside strings, blanked (gemini reads its settings through strip-json-comments). */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function readOrNull(p: string): string | null {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function linkTarget(p: string): string | null {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}
