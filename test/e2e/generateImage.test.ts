// Images out: generate_image asks with the path shown, calls the Gemini API's image model at
// gemini's base URL with gemini's API key, writes the PNG byte for byte, and undo takes it back; without
// an API-key login (OAuth, Vertex, claude) it says what would enable it, before anyone is asked.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePng } from '../helpers/png.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { REPO_ROOT, fakeEnv, makeHome, makeProject, runDevx } from '../helpers/env.js';
import { killUnder } from '../helpers/processes.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { DEFAULT_IMAGE_MODEL, imageModelFor } from '../../src/providers/gemini/imageModel.js';

const CLAUDE_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'claude');
const PNG = makePng();

let gemini: FakeGeminiApi;
let claude: FakeAnthropicApi;
let home: string;
const sessions: PtySession[] = [];
beforeEach(async () => {
  gemini = await new FakeGeminiApi().start();
  claude = await new FakeAnthropicApi().start();
  home = makeHome();
});
afterEach(async () => {
  for (const s of sessions.splice(0)) s.kill();
  killUnder(path.join(home, '.devx'));
  await gemini.close();
  await claude.close();
  expect([...gemini.scriptErrors, ...claude.scriptErrors].map((e) => e.message)).toEqual([]);
});

const env = () => fakeEnv(gemini, home, { ANTHROPIC_BASE_URL: claude.url, ANTHROPIC_API_KEY: 'sk-ant-test', DEVX_CLAUDE_BIN: CLAUDE_BIN });
const imageCalls = () => gemini.requests.filter((r) => r.model === DEFAULT_IMAGE_MODEL);

describe('generate_image', () => {
  it('asks with the path shown, then writes the PNG the image model returned, byte for byte', async () => {
    const project = makeProject({});
    gemini.push(
      { text: 'TOOL_CALL: generate_image | prompt=a green leaf icon | path=assets/icon.png' },
      { image: { mimeType: 'image/png', data: PNG } },
      { text: 'The icon is in assets/icon.png.' },
    );
    const s = startInPty([], project, env());
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('make an app icon\r');
    await s.waitFor(/Allow\? \[y\]es/);
    const asked = s.screen();
    expect(asked).toMatch(/wants to generate the image assets\/icon\.png/);
    expect(asked).toMatch(new RegExp(`create assets/icon\\.png with a PNG from ${DEFAULT_IMAGE_MODEL}`));
    expect(asked).toMatch(/prompt: a green leaf icon/);
    expect(imageCalls()).toHaveLength(0); // nothing is generated before the yes
    s.type('y\r');
    await s.waitFor(/The icon is in assets\/icon\.png\./);
    expect(fs.readFileSync(path.join(project, 'assets/icon.png')).equals(PNG)).toBe(true);
    const [call] = imageCalls();
    expect(call.kind).toBe('generate');
    expect(call.apiKey).toBe('test-key');
    expect(call.promptText).toBe('a green leaf icon');
    expect(call.body.generationConfig.responseModalities).toContain('IMAGE');
    expect(gemini.modelCalls.at(-1)!.promptText).toMatch(/created assets\/icon\.png: a \d+-byte PNG from gemini-2\.5-flash-image/);
  }, 90_000);

  it('goes through the tool wrapper: undo removes the file it created; an answer without a PNG writes nothing', async () => {
    const project = makeProject({ 'logo.png': 'old logo' });
    gemini.push(
      { text: 'TOOL_CALL: generate_image | prompt=a logo | path=new/art.png' },
      { image: { mimeType: 'image/png', data: PNG } },
      { text: 'TOOL_CALL: generate_image | prompt=another logo | path=logo.png' },
      { image: { mimeType: 'image/jpeg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) } },
      { text: 'Done.' },
    );
    const r = await runDevx(['run', '--yes', 'draw a logo'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project, 'new/art.png')).equals(PNG)).toBe(true);
    expect(fs.readFileSync(path.join(project, 'logo.png'), 'utf8')).toBe('old logo');
    expect(gemini.modelCalls.at(-1)!.promptText).toMatch(/the image model returned image\/jpeg data that is not a PNG; nothing was written to logo\.png/);
    const undo = await runDevx(['undo'], { cwd: project, env: env() });
    expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    expect(fs.existsSync(path.join(project, 'new/art.png'))).toBe(false);
  }, 90_000);

  it('on claude it says what would enable it, without asking or calling any image model', async () => {
    const project = makeProject({});
    claude.push({ text: 'TOOL_CALL: generate_image | prompt=a cat | path=cat.png' }, { text: 'Image generation is not available.' });
    const r = await runDevx(['run', '--provider', 'claude', 'draw a cat'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const second = JSON.stringify(claude.modelCalls[1].body.messages);
    expect(second).toMatch(
      /generate_image needs the gemini provider: claude has no image model devx can call\. Run with --provider gemini and set GEMINI_API_KEY/,
    );
    expect(imageCalls()).toHaveLength(0);
    expect(fs.existsSync(path.join(project, 'cat.png'))).toBe(false);
  }, 90_000);

  it('an OAuth or Vertex login is told that a Gemini API key enables it', () => {
    const oauth = imageModelFor('gemini', { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
    expect('unavailable' in oauth && oauth.unavailable).toMatch(
      /gemini is logged in with a Google account \(OAuth\), not an API key.*To enable it, set GEMINI_API_KEY to a Gemini API key/,
    );
    const vertex = imageModelFor('gemini', { GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'p' });
    expect('unavailable' in vertex && vertex.unavailable).toMatch(/logged in through Vertex AI.*set GEMINI_API_KEY/);
    expect('model' in imageModelFor('gemini', { GEMINI_API_KEY: 'k' })).toBe(true);
  });
});
