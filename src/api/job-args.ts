/** The job's own command-line arguments (after `--`), read like Flink's ParameterTool. */
export class JobArgs {
  readonly raw: readonly string[];
  readonly #values = new Map<string, string>();

  constructor(raw: readonly string[]) {
    this.raw = raw;
    for (let i = 0; i < raw.length; i++) {
      const arg = raw[i]!;
      if (!arg.startsWith('--')) continue;
      const eq = arg.indexOf('=');
      if (eq > 0) {
        this.#values.set(arg.slice(2, eq), arg.slice(eq + 1));
      } else if (i + 1 < raw.length && !raw[i + 1]!.startsWith('--')) {
        this.#values.set(arg.slice(2), raw[++i]!);
      } else {
        this.#values.set(arg.slice(2), 'true');
      }
    }
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  get(name: string): string | undefined;
  get(name: string, fallback: string): string;
  get(name: string, fallback?: string): string | undefined {
    return this.#values.get(name) ?? fallback;
  }

  getNumber(name: string, fallback: number): number {
    const text = this.#values.get(name);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new TypeError(`job argument --${name} must be a number, got '${text}'`);
    return n;
  }
}
