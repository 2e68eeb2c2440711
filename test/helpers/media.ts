// Small media files with the real headers of their formats, for the audio, video and PDF tests.
// Each carries a distinct payload so a mix-up between files shows as a byte mismatch.

const tail = (tag: string, n = 64) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + tag.charCodeAt(i % tag.length)) & 0xff));

/** A PCM WAV: RIFF/WAVE, fmt and data chunks (16-bit mono, 8 kHz). */
export function makeWav(): Buffer {
  const data = tail('wav', 160);
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0);
  fmt.writeUInt16LE(1, 2);
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(16000, 8);
  fmt.writeUInt16LE(2, 12);
  fmt.writeUInt16LE(16, 14);
  const chunk = (id: string, b: Buffer) => Buffer.concat([Buffer.from(id, 'latin1'), Buffer.from(new Uint32Array([b.length]).buffer), b]);
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), chunk('fmt ', fmt), chunk('data', data)]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from(new Uint32Array([body.length]).buffer), body]);
}

/** An MP3: an ID3v2.4 tag header, then an MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz). */
export function makeMp3(withId3 = true): Buffer {
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), tail('mp3', 413)]);
  return withId3 ? Buffer.concat([Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]), frame]) : frame;
}

export const makeOgg = () => Buffer.concat([Buffer.from('OggS', 'latin1'), Buffer.from([0, 2]), tail('ogg', 80)]);
export const makeFlac = () => Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), tail('flac', 34)]);

const ftyp = (brand: string) =>
  Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`ftyp${brand}`, 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from(`${brand}mp41`, 'latin1')]);
export const makeMp4 = () => Buffer.concat([ftyp('isom'), Buffer.from([0, 0, 0, 72]), Buffer.from('mdat', 'latin1'), tail('mp4', 64)]);
export const makeMov = () => Buffer.concat([ftyp('qt  '), Buffer.from([0, 0, 0, 72]), Buffer.from('mdat', 'latin1'), tail('mov', 64)]);
/** WebM: an EBML header whose DocType is "webm". */
export const makeWebm = () =>
  Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84]), Buffer.from('webm', 'latin1'), tail('webm', 64)]);
/** A one-page PDF. */
export const makePdf = () =>
  Buffer.from(
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    'latin1',
  );
