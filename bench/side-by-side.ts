import { fmtNumber, settle, summarize, type ScenarioOptions, type Summary } from './harness.ts';

/** What runVariants measured: per variant the throughput samples, per named ratio the per-run ratios. */
export interface SideBySide {
  readonly samples: Readonly<Record<string, Summary>>;
  readonly ratios: Readonly<Record<string, Summary>>;
}

/**
 * Runs each variant once per run, in an order rotated by one each run (so no variant always
 * follows the same one on a shared, noisy machine), each timing `items` items and returning its
 * milliseconds. A ratio `[a, b]` is `ms(a) / ms(b)` of the same run: b's speed relative to a's,
 * measured side by side; the summaries are over the runs.
 */
export async function runVariants(
  options: ScenarioOptions,
  items: number,
  unit: string,
  variants: Readonly<Record<string, () => Promise<number>>>,
  ratios: Readonly<Record<string, readonly [string, string]>>,
): Promise<SideBySide> {
  // --only a,b: those variants alone (to profile one); ratios need both of theirs.
  const only = options.flags.only?.split(',').map((x) => x.trim());
  const names = Object.keys(variants).filter((v) => only === undefined || only.includes(v));
  const width = Math.max(...names.map((v) => v.length)) + 1;
  const samples: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
  const perRun: Record<string, number[]> = Object.fromEntries(Object.keys(ratios).map((k) => [k, []]));
  for (let run = 0; run < options.runs; run++) {
    const order = [...names.slice(run % names.length), ...names.slice(0, run % names.length)];
    const ms: Record<string, number> = {};
    for (const v of order) {
      await settle();
      ms[v] = await variants[v]!();
      samples[v]!.push((items / ms[v]!) * 1000);
      options.log(`run ${run + 1}/${options.runs} ${v.padEnd(width)} ${fmtNumber((items / ms[v]!) * 1000)} ${unit}`);
    }
    for (const [name, [a, b]] of Object.entries(ratios)) if (ms[a] !== undefined && ms[b] !== undefined) perRun[name]!.push(ms[a] / ms[b]);
  }
  return {
    samples: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])),
    ratios: Object.fromEntries(Object.entries(perRun).filter(([, v]) => v.length > 0).map(([k, v]) => [k, summarize(v)])),
  };
}

/** The variants' throughput as a table: median, min and max per variant. */
export function variantTable(result: SideBySide, unit: string): { columns: string[]; rows: string[][] } {
  return {
    columns: ['variant', `${unit} (median)`, 'min', 'max'],
    rows: Object.entries(result.samples).map(([k, s]) => [k, fmtNumber(s.median), fmtNumber(s.min), fmtNumber(s.max)]),
  };
}
