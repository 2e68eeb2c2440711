// A live status block: a spinner with elapsed seconds, plus one line per running sub-agent with its
// own elapsed time. Disabled when the stream is not a TTY or NO_COLOR is set. What it draws may quote a
// model or a command (a sub-agent's query, a command's last line): shown with its controls escaped.
import { escapeControls } from '../util/terminalText.js';
import { fitColumns } from './visible.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private label = '';
  private frame = 0;
  private drawn = 0;
  private readonly tasks = new Map<number, { label: string; started: number }>();
  private detail = '';
  readonly enabled: boolean;

  constructor(
    private readonly out: NodeJS.WriteStream,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.enabled = Boolean(out.isTTY) && !env.NO_COLOR;
  }

  start(label: string): void {
    if (!this.enabled) return;
    this.stop();
    this.detail = '';
    this.label = escapeControls(label);
    this.started = Date.now();
    this.timer = setInterval(() => this.draw(), 100);
    this.draw();
  }

  /** A line under the label (a running command's last line of output); '' for none. */
  setDetail(text: string): void {
    this.detail = escapeControls(text);
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Writes `text` above the live block, which keeps running below it. */
  above(text: string): void {
    if (!this.timer) {
      this.out.write(escapeControls(text));
      return;
    }
    this.clear();
    this.out.write(escapeControls(text));
    this.draw();
  }

  /** Adds or removes a sub-agent's line (spawn_gemini). */
  subtask(id: number, label: string | null): void {
    if (label === null) this.tasks.delete(id);
    else this.tasks.set(id, { label: escapeControls(label), started: Date.now() });
    if (!this.enabled) return;
    if (!this.timer && this.tasks.size) this.start(this.label || 'working');
  }

  /** Redraws after other output if sub-agents are still running. */
  resume(): void {
    if (this.enabled && !this.timer && this.tasks.size) {
      const started = this.started;
      this.start(this.label || 'working');
      this.started = started || Date.now();
    }
  }

  private clear(): void {
    if (this.drawn > 1) this.out.write(`\x1b[${this.drawn - 1}A`);
    this.out.write('\r\x1b[J');
    this.drawn = 0;
  }

  private draw(): void {
    const secs = (t: number) => `${Math.floor((Date.now() - t) / 1000)}s`;
    // Each line fits the terminal: a wrapped line would throw off the count used to clear the block.
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    const fit = (l: string) => fitColumns(l, width);
    const lines = [fit(`${FRAMES[this.frame++ % FRAMES.length]} ${this.label} ${secs(this.started)}`)];
    for (const [id, t] of this.tasks) lines.push(fit(`   ⇉ [${id}] ${t.label} ${secs(t.started)}`));
    if (this.detail) lines.push(`\x1b[2m${fit(`  │ ${this.detail}`)}\x1b[22m`);
    this.clear();
    this.out.write(lines.join('\n'));
    this.drawn = lines.length;
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }
}
