import type { AggregatedMetricView, MetricView } from './rest-views.ts';

/** A query parameter Flink's metric handlers would refuse: answered with 400 and the reason. */
export class MetricQueryError extends Error {
  readonly statusCode = 400;
  readonly parameter: string;
  readonly value: string;
  constructor(parameter: string, value: string, reason: string) {
    super(`?${parameter}=${value}: ${reason}`);
    this.name = 'MetricQueryError';
    this.parameter = parameter;
    this.value = value;
  }
}

export type Aggregation = 'min' | 'max' | 'avg' | 'sum' | 'skew';
const AGGREGATIONS: readonly Aggregation[] = ['min', 'max', 'avg', 'sum', 'skew'];

const list = (text: string | undefined): string[] | undefined => (text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Flink's metric query (MetricCollectionResponseBody): without `get`, the ids there are; with
 * `get=a,b`, those of them that exist with their values (as strings, as Flink's). Ids that do not
 * exist are left out, as Flink does.
 */
export function queryMetrics(available: Readonly<Record<string, number | string>>, get: string | undefined): MetricView[] {
  const wanted = list(get);
  if (wanted === undefined) return Object.keys(available).map((id) => ({ id }));
  return wanted.filter((id) => id in available).map((id) => ({ id, value: String(available[id]) }));
}

/** `agg=min,max,...` (any case); unset: all of them. */
export function parseAggregations(agg: string | undefined): readonly Aggregation[] {
  const asked = list(agg);
  if (asked === undefined || asked.length === 0) return AGGREGATIONS;
  return asked.map((a) => {
    const lower = a.toLowerCase() as Aggregation;
    if (!AGGREGATIONS.includes(lower)) throw new MetricQueryError('agg', agg!, `'${a}' is not one of ${AGGREGATIONS.join(', ')}`);
    return lower;
  });
}

/** `subtasks=1,3,5-9`: the subtask indices selected, or undefined for all. */
export function parseSubtaskRanges(text: string | undefined, parallelism: number): Set<number> | undefined {
  const parts = list(text);
  if (parts === undefined) return undefined;
  const selected = new Set<number>();
  for (const part of parts) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new MetricQueryError('subtasks', text!, `'${part}' is not an index or a range such as 5-9`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new MetricQueryError('subtasks', text!, `the range '${part}' is empty`);
    for (let i = from; i <= Math.min(to, parallelism - 1); i++) selected.add(i);
  }
  return selected;
}

/**
 * Flink's aggregated metric query (AggregatedMetricsResponseBody) over several subtasks or jobs:
 * without `get`, the ids any of them has; with `get`, each id's aggregations over those that have
 * it. `skew` is how far the maximum is above the average, in percent of the average.
 */
export function aggregateMetrics(each: ReadonlyArray<Readonly<Record<string, number | string>>>, get: string | undefined, aggregations: readonly Aggregation[]): AggregatedMetricView[] {
  const ids = [...new Set(each.flatMap((m) => Object.keys(m)))];
  const wanted = list(get);
  if (wanted === undefined) return ids.map((id) => ({ id }));
  return wanted
    .filter((id) => ids.includes(id))
    .map((id) => {
      const values = each.map((m) => m[id]).filter((v) => v !== undefined).map(Number);
      const sum = values.reduce((a, b) => a + b, 0);
      const avg = sum / values.length;
      const max = Math.max(...values);
      const all: Record<Aggregation, number> = { min: Math.min(...values), max, avg, sum, skew: avg === 0 ? 0 : ((max - avg) / avg) * 100 };
      return { id, ...Object.fromEntries(aggregations.map((a) => [a, all[a]])) };
    });
}
