// Images: `@path` in a message and the analyze_image tool send a real PNG to the
// model; the fake APIs must receive its bytes intact, on gemini (through ACP) and on claude.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makePng } from '../helpers/png.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { FakeGeminiApi, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { makeProject, runDevx } from '../helpers/env.js';
import { useBothFakes } from '../helpers/useBothFakes.js';

const PNG = makePng();
const fakes = useBothFakes();
let gemini: FakeGeminiApi;
let claude: FakeAnthropicApi;
beforeEach(() => ({ gemini, claude } = fakes));

const env = () => fakes.env();
const inlineImages = (r: RecordedRequest) =>
  (r.body?.contents ?? []).flatMap((c: any) =>
    (c.parts ?? []).filter((p: any) => p.inlineData).map((p: any) => p.inlineData as { mimeType: string; data: string }),
  );

describe('images', () => {
  // One run, one gemini: the message's own image, then the tool's, in the next request of the same turn.
  it('@path in a message sends the PNG to gemini with its bytes intact; the analyze_image tool attaches one to its result for the next request', async () => {
    const project = makeProject({ 'docs/.keep': '' });
    fs.writeFileSync(path.join(project, 'docs/shot.png'), PNG);
    fs.writeFileSync(path.join(project, 'mock.png'), PNG);
    gemini.push({ text: 'TOOL_CALL: analyze_image | path=mock.png' }, { text: 'Both show a blue-ish gradient.' });
    const r = await runDevx(['run', 'is @docs/shot.png the same as the mock-up?'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Both show a blue-ish gradient.');
    const [first, second] = gemini.modelCalls;
    const imgs = inlineImages(first);
    expect(imgs).toHaveLength(1);
    expect(imgs[0].mimeType).toBe('image/png');
    expect(Buffer.from(imgs[0].data, 'base64').equals(PNG)).toBe(true);
    expect(first.promptText).toContain(`[image attached: docs/shot.png (image/png, ${PNG.length} bytes)]`);
    // The conversation keeps the message's image; the tool's comes after it, with the tool's result.
    const later = inlineImages(second);
    expect(later).toHaveLength(2);
    expect(later.every((i: { mimeType: string; data: string }) => i.mimeType === 'image/png' && Buffer.from(i.data, 'base64').equals(PNG))).toBe(true);
    expect(second.promptText).toContain('TOOL_RESULT: analyze_image');
  }, 90_000);

  it('refuses what is not an image, an image over 5 MB, and a denied path, without calling the model', async () => {
    const project = makeProject({ 'fake.png': 'not a png at all', '.devx/settings.json': JSON.stringify({ permissions: { deny: ['Read(./private/**)'] } }) });
    fs.mkdirSync(path.join(project, 'private'));
    fs.writeFileSync(path.join(project, 'private/p.png'), PNG);
    fs.writeFileSync(path.join(project, 'big.png'), Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]));
    const cases: [string, RegExp][] = [
      ['look at @fake.png', /@fake\.png: fake\.png is not a PNG, JPEG, WebP or GIF image/],
      ['look at @big.png', /@big\.png: big\.png is 6\.0 MB; images are limited to 5\.0 MB/],
      ['look at @private/p.png', /@private\/p\.png: .*the image was not sent/],
      ['look at @missing.png', /@missing\.png: image not found: missing\.png/],
    ];
    for (const [prompt, msg] of cases) {
      const r = await runDevx(['run', prompt], { cwd: project, env: env() });
      expect(r.code, prompt).not.toBe(0);
      expect(r.stderr + r.stdout).toMatch(msg);
    }
    expect(gemini.modelCalls).toHaveLength(0);
  }, 90_000);

  it('claude receives the image as a base64 image block, bytes intact', async () => {
    const project = makeProject({});
    fs.writeFileSync(path.join(project, 'shot.png'), PNG);
    claude.push({ text: 'I see a gradient.' });
    const r = await runDevx(['run', '--provider', 'claude', 'what is in @shot.png'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('I see a gradient.');
    const blocks = claude.modelCalls[0].body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'image');
    expect(blocks).toHaveLength(1);
    expect(blocks[0].source.media_type).toBe('image/png');
    expect(Buffer.from(blocks[0].source.data, 'base64').equals(PNG)).toBe(true);
  }, 90_000);
});
