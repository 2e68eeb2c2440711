// First streamed character: how long after the fake API writes the first chunk of a reply the REPL
// (in a real terminal) shows its first characters. The rest of the reply follows a second later, so
// only streaming can show the start early.
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { fakeEnv, makeHome, makeProject } from '../test/helpers/env.js';
import { startInPty } from '../test/helpers/pty.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchFirstChar(): Promise<void> {
  const runs = Number(process.env.BENCH_STREAM_RUNS ?? 5);
  const fake = await new FakeGeminiApi().start();
  const home = makeHome();
  const lags: number[] = [];
  for (let i = 0; i < runs; i++) {
    const mark = `FIRSTPART${i}`;
    fake.push({ text: `${mark} begins the reply.\nThe rest of the reply is long enough to be sent in three chunks,\nthe last of them a second later.`, chunkDelayMs: 1000 });
    // A fresh project each time: a REPL killed a moment ago may still hold its project's session lock.
    const project = makeProject({});
    const pty = startInPty([], project, { ...fakeEnv(fake, home), NO_COLOR: '' });
    await pty.waitFor(/devx>|>\s*$/m, 60_000).catch(() => undefined);
    pty.type(`say hello ${i}\r`);
    const re = new RegExp(mark);
    const t0 = Date.now();
    while (!re.test(pty.screen()) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 1));
    const seen = Date.now();
    const req = fake.modelCalls.at(-1);
    if (!req?.firstChunkAt) throw new Error('the fake API sent no streamed chunk');
    lags.push(seen - req.firstChunkAt);
    pty.kill();
    await new Promise((r) => setTimeout(r, 200));
  }
  await fake.close();
  console.log(`streaming: the REPL shows the first streamed characters ${median(lags)} ms (median of ${runs}; all: ${lags.join(', ')}) after the fake API writes them (target < 50 ms)`);
}
