// A one-line spinner with elapsed seconds. Disabled when the stream is not a TTY or NO_COLOR is set.
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private label = '';
  private frame = 0;
  readonly enabled: boolean;

  constructor(private readonly out: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env) {
    this.enabled = Boolean(out.isTTY) && !env.NO_COLOR;
  }

  start(label: string): void {
    if (!this.enabled) return;
    this.stop();
    this.label = label;
    this.started = Date.now();
    this.timer = setInterval(() => this.draw(), 100);
    this.draw();
  }

  private draw(): void {
    const secs = Math.floor((Date.now() - this.started) / 1000);
    this.out.write(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${this.label} ${secs}s`);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write('\r\x1b[2K');
  }
}
