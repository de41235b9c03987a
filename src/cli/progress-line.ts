import type { JobMaster } from '../coordinator/job-master.ts';

/** A live line on a terminal: job state, records in/out per second, checkpoints. Nothing when not a TTY. */
export class ProgressLine {
  readonly #master: JobMaster;
  readonly #out: NodeJS.WriteStream;
  #timer: NodeJS.Timeout | undefined;
  #last = { at: performance.now(), readIn: 0, writtenOut: 0 };
  #shown = false;

  constructor(master: JobMaster, out: NodeJS.WriteStream = process.stderr) {
    this.#master = master;
    this.#out = out;
  }

  start(): void {
    if (!this.#out.isTTY) return;
    this.#timer = setInterval(() => this.#render(), 1000);
    this.#timer.unref();
  }

  /** Clears the line so that other output starts on a clean line. */
  clear(): void {
    if (this.#shown) this.#out.write('\r\x1b[2K');
    this.#shown = false;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.clear();
  }

  #render(): void {
    const now = performance.now();
    const counts = this.#master.recordCounts();
    const secs = (now - this.#last.at) / 1000;
    const inRate = Math.max(0, (counts.readIn - this.#last.readIn) / secs);
    const outRate = Math.max(0, (counts.writtenOut - this.#last.writtenOut) / secs);
    this.#last = { at: now, ...counts };
    const stats = this.#master.checkpoints.stats;
    const latest = stats.history().filter((s) => s.status === 'COMPLETED').at(-1);
    const cp = latest ? `  checkpoints ${stats.counts.completed} ok / ${stats.counts.failed} failed (last #${latest.id}, ${Math.round(latest.endToEndDuration)} ms)` : '';
    const restarts = this.#master.restarts > 0 ? `  restarts ${this.#master.restarts}` : '';
    const line = `${this.#master.status}  in ${fmt(inRate)} rec/s  out ${fmt(outRate)} rec/s  total in ${fmt(counts.readIn)}${cp}${restarts}`;
    this.#out.write(`\r\x1b[2K${line.slice(0, (this.#out.columns ?? 120) - 1)}`);
    this.#shown = true;
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
