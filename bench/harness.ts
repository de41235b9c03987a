// Shared pieces of the benchmarks: timing, statistics, the result table, the JSON file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = join(BENCH_DIR, 'results');

/** What `npm run bench -- <scenario> [options]` hands a scenario. */
export interface ScenarioOptions {
  /** Measured runs per variant (--runs, default 5). */
  readonly runs: number;
  /** --records, when given; each scenario has its own default. */
  readonly records: number | undefined;
  /** Every other --flag of the command line, by name ('true' for a bare flag). */
  readonly flags: Readonly<Record<string, string>>;
  /** Progress lines (stderr, so the table on stdout stays clean). */
  readonly log: (line: string) => void;
}

export interface ScenarioResult {
  /** What the table shows, one row per variant or derived figure. */
  readonly table: Table;
  /** Further tables, printed after the main one under their titles. */
  readonly extraTables?: ReadonlyArray<{ readonly title: string; readonly table: Table }>;
  /** Lines printed under the table: ratios, goals, caveats. */
  readonly notes?: readonly string[];
  /** Everything worth keeping in the JSON file (settings, raw samples, summaries). */
  readonly data: Record<string, unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Extra flags the scenario understands, for the listing. */
  readonly flags?: Readonly<Record<string, string>>;
  /** Runs per variant when --runs is not given (default 5). */
  readonly defaultRuns?: number;
  run(options: ScenarioOptions): Promise<ScenarioResult>;
}

// ---- timing ----

/** Milliseconds taken by fn, with its result. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** CPU time (user + system) of the whole process, all threads, in milliseconds. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function rssMb(): number {
  return process.memoryUsage().rss / (1024 * 1024);
}

/** The highest RSS the process (all its threads) has reached so far. */
export function maxRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Samples the process RSS every `everyMs` while something runs; a fully synchronous run never
 * lets the timer fire, so the value at stop() is included too.
 */
export function rssSampler(everyMs = 50): { stop(): number } {
  let peak = rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMb());
    },
  };
}

/** Lets pending timers, I/O and finalizers run, and collects garbage when node was started with --expose-gc. */
export async function settle(ms = 50): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, ms));
}

// ---- statistics ----

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function min(values: readonly number[]): number {
  return values.length === 0 ? NaN : Math.min(...values);
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? NaN : Math.max(...values);
}

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly samples: readonly number[];
}

export function summarize(samples: readonly number[]): Summary {
  return { median: median(samples), min: min(samples), max: max(samples), samples: [...samples] };
}

// ---- formatting ----

/** 1234567 -> "1,234,567"; fractional values keep `digits` decimals. */
export function fmtNumber(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return String(n);
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function fmtRatio(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(2)}x` : '-';
}

export function fmtMs(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(n < 100 ? 1 : 0)} ms` : '-';
}

export interface Table {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  /** Per column: 'left' or 'right' (default: first column left, the rest right). */
  readonly align?: ReadonlyArray<'left' | 'right'>;
}

export function renderTable(table: Table): string {
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const align = (i: number) => table.align?.[i] ?? (i === 0 ? 'left' : 'right');
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (align(i) === 'left' ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(table.columns), widths.map((w) => '-'.repeat(w)).join('  '), ...table.rows.map(line)].join('\n');
}

// ---- results ----

/** The machine and process the numbers came from. */
export function environmentInfo(): Record<string, unknown> {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    loadavg: loadavg(),
    execArgv: process.execArgv,
  };
}

/** Writes bench/results/<scenario>-<timestamp>.json, and the same as <scenario>.json (the latest run), and returns the first path. */
export function writeResult(scenario: string, options: ScenarioOptions, result: ScenarioResult, startedAt: Date): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const path = join(RESULTS_DIR, `${scenario}-${stamp}.json`);
  const doc = {
    scenario,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options: { runs: options.runs, records: options.records ?? null, flags: options.flags },
    environment: environmentInfo(),
    rssMb: rssMb(),
    maxRssMb: maxRssMb(),
    table: { columns: result.table.columns, rows: result.table.rows },
    extraTables: (result.extraTables ?? []).map((t) => ({ title: t.title, columns: t.table.columns, rows: t.table.rows })),
    notes: result.notes ?? [],
    ...result.data,
  };
  const text = JSON.stringify(doc, null, 2) + '\n';
  writeFileSync(path, text);
  writeFileSync(join(RESULTS_DIR, `${scenario}.json`), text);
  return path;
}

/** A whole-number command-line flag of a scenario (`--records 1_000_000`), at least `min`. */
export function intFlag(options: ScenarioOptions, name: string, fallback: number, min = 1): number {
  const text = options.flags[name];
  if (text === undefined) return fallback;
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got '${text}'`);
  return n;
}

/** A comma-separated subset of `all` (`--variants off,incremental`), in the order given; all of them when the flag is absent. */
export function listFlag<T extends string>(options: ScenarioOptions, name: string, all: readonly T[]): T[] {
  const text = options.flags[name];
  if (text === undefined) return [...all];
  return text.split(',').map((item) => {
    const found = all.find((x) => x === item.trim());
    if (found === undefined) throw new Error(`--${name} takes ${all.join(', ')}, got '${item}'`);
    return found;
  });
}

/** --set key=value,key=value: configuration keys given to every job (checked by the job's own configuration). */
export function configFlag(text: string | undefined): Record<string, string> {
  const config: Record<string, string> = {};
  for (const pair of text?.split(',') ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`--set takes key=value pairs separated by commas, got '${pair}'`);
    config[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return config;
}
