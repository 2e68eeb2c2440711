// Audio, video and PDF in: `@path` in a message, the analyze_media tool and an ACP audio
// block send the file's bytes to the model intact, typed by their content; claude takes a PDF as a
// document block and refuses audio and video by name; wrong content, size and denied paths are refused.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeFlac, makeMov, makeMp3, makeMp4, makeOgg, makePdf, makeWav, makeWebm } from '../helpers/media.js';
import { makePng } from '../helpers/png.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { FakeGeminiApi, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { DEVX_BIN, makeProject, runDevx } from '../helpers/env.js';
import { useBothFakes } from '../helpers/useBothFakes.js';
import { sniffMediaType } from '../../src/tools/loadMedia.js';

const fakes = useBothFakes();
let gemini: FakeGeminiApi;
let claude: FakeAnthropicApi;
beforeEach(() => ({ gemini, claude } = fakes));

const env = () => fakes.env();
const inline = (r: RecordedRequest) =>
  (r.body?.contents ?? []).flatMap((c: any) =>
    (c.parts ?? [])
      .filter((p: any) => p.inlineData)
      .map((p: any) => ({ mimeType: p.inlineData.mimeType as string, bytes: Buffer.from(p.inlineData.data, 'base64') })),
  );

describe('media types by their bytes', () => {
  it('names each format from its header, whatever the file is called; others are null', () => {
    expect(sniffMediaType(makeMp3())).toBe('audio/mpeg');
    expect(sniffMediaType(makeMp3(false))).toBe('audio/mpeg');
    expect(sniffMediaType(makeWav())).toBe('audio/wav');
    expect(sniffMediaType(makeOgg())).toBe('audio/ogg');
    expect(sniffMediaType(makeFlac())).toBe('audio/flac');
    expect(sniffMediaType(makeMp4())).toBe('video/mp4');
    expect(sniffMediaType(makeMov())).toBe('video/quicktime');
    expect(sniffMediaType(makeWebm())).toBe('video/webm');
    expect(sniffMediaType(makePdf())).toBe('application/pdf');
    expect(sniffMediaType(makePng())).toBe('image/png');
    expect(sniffMediaType(Buffer.from('ID'))).toBeNull();
    expect(sniffMediaType(Buffer.from('just some text, not audio'))).toBeNull();
    expect(sniffMediaType(Buffer.from([0xff, 0xf1, 0x50, 0x80]))).toBeNull(); // AAC ADTS, not MPEG layer III
    expect(sniffMediaType(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x42, 0x82, 0x88, ...Buffer.from('matroska')]))).toBeNull();
  });
});

describe('audio, video and PDF to gemini', () => {
  // One run, one gemini: the message's files, then the tool's, in the next request of the same turn.
  it('@files go as ACP blocks, intact and typed by content (a WAV named .mp3 is sent as WAV); analyze_media attaches a WebM to its result for the next request', async () => {
    const project = makeProject({});
    const files: [string, Buffer, string][] = [
      ['clip.mp3', makeMp3(), 'audio/mpeg'],
      ['talk.mp3', makeWav(), 'audio/wav'],
      ['demo.mp4', makeMp4(), 'video/mp4'],
      ['screen.mov', makeMov(), 'video/quicktime'],
      ['spec.pdf', makePdf(), 'application/pdf'],
      ['shot.png', makePng(), 'image/png'],
    ];
    for (const [name, bytes] of files) fs.writeFileSync(path.join(project, name), bytes);
    fs.writeFileSync(path.join(project, 'rec.webm'), makeWebm());
    gemini.push({ text: 'TOOL_CALL: analyze_media | path=rec.webm' }, { text: 'All seen; the recording shows a login.' });
    const r = await runDevx(['run', `compare ${files.map(([n]) => `@${n}`).join(' ')} with the recording`], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the recording shows a login.');
    const [first, second] = gemini.modelCalls;
    const sent = files.map(([, bytes, mimeType]) => ({ mimeType, bytes }));
    expect(inline(first)).toEqual(sent);
    expect(first.promptText).toContain(`[audio attached: clip.mp3 (audio/mpeg, ${makeMp3().length} bytes)]`);
    // The conversation keeps the message's files; the WebM comes after them, with the tool's result.
    expect(inline(second)).toEqual([...sent, { mimeType: 'video/webm', bytes: makeWebm() }]);
    expect(second.promptText).toContain('TOOL_RESULT: analyze_media');
  }, 90_000);

  it('refuses a file whose content is no known type, one over its size limit and a denied path, without calling the model', async () => {
    const project = makeProject({
      'notes.mp3': 'these are notes, not audio',
      '.devx/settings.json': JSON.stringify({ permissions: { deny: ['Read(./private/**)'] } }),
    });
    fs.mkdirSync(path.join(project, 'private'));
    fs.writeFileSync(path.join(project, 'private/p.pdf'), makePdf());
    fs.writeFileSync(path.join(project, 'long.wav'), Buffer.concat([makeWav(), Buffer.alloc(15 * 1024 * 1024)]));
    const cases: [string, RegExp][] = [
      ['hear @notes.mp3', /@notes\.mp3: notes\.mp3 is not one of the files devx sends to the model \(.*MP3, WAV, OGG or FLAC audio.*\), judged by its content/],
      ['hear @long.wav', /@long\.wav: long\.wav is 15\.0 MB; audio files are limited to 14\.0 MB/],
      ['read @private/p.pdf', /@private\/p\.pdf: .*the file was not sent/],
      ['watch @missing.mp4', /@missing\.mp4: file not found: missing\.mp4/],
    ];
    for (const [prompt, msg] of cases) {
      const r = await runDevx(['run', prompt], { cwd: project, env: env() });
      expect(r.code, prompt).not.toBe(0);
      expect(r.stderr + r.stdout).toMatch(msg);
    }
    expect(gemini.modelCalls).toHaveLength(0);
  }, 90_000);

  it('an ACP audio block from the editor reaches the model byte for byte; the capability says audio', async () => {
    const project = makeProject({});
    gemini.push({ text: 'A tone.' });
    const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd: project, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const conn = acp
        .client({ name: 'test-editor' })
        .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
        .connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
      const init = await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentCapabilities?.promptCapabilities?.audio).toBe(true);
      const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
      const data = makeFlac().toString('base64');
      await conn.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'what is this?' },
          { type: 'audio', mimeType: 'audio/flac', data },
        ],
      });
      expect(inline(gemini.modelCalls[0])).toEqual([{ mimeType: 'audio/flac', bytes: makeFlac() }]);
      const notAudio = Buffer.from('plain text').toString('base64');
      await expect(
        conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'audio', mimeType: 'audio/wav', data: notAudio }] }),
      ).rejects.toThrow(/audio 1 \(audio\/wav\) is not MP3, WAV, OGG or FLAC audio/);
    } finally {
      child.kill();
    }
  }, 90_000);
});

describe('audio, video and PDF to claude', () => {
  it('a PDF goes as a base64 document block, bytes intact', async () => {
    const project = makeProject({});
    fs.writeFileSync(path.join(project, 'spec.pdf'), makePdf());
    claude.push({ text: 'The spec has one page.' });
    const r = await runDevx(['run', '--provider', 'claude', 'summarise @spec.pdf'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('The spec has one page.');
    const blocks = claude.modelCalls[0].body.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .filter((b: any) => b.type === 'document');
    expect(blocks).toHaveLength(1);
    expect(blocks[0].source.media_type).toBe('application/pdf');
    expect(Buffer.from(blocks[0].source.data, 'base64').equals(makePdf())).toBe(true);
  }, 90_000);

  it('audio is refused by name, saying which provider takes it, without calling the API', async () => {
    const project = makeProject({});
    fs.writeFileSync(path.join(project, 'clip.ogg'), makeOgg());
    const r = await runDevx(['run', '--provider', 'claude', 'transcribe @clip.ogg'], { cwd: project, env: env() });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/clip\.ogg: claude cannot take audio \(its API accepts images and PDFs\); use --provider gemini for audio and video/);
    expect(claude.modelCalls).toHaveLength(0);
  }, 90_000);
});
