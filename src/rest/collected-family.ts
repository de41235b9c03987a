import { Counter, Gauge, type Registry } from 'prom-client';

export type Labels = Record<string, string>;
export type Samples = () => Iterable<readonly [Labels, number]>;

/**
 * A metric family whose samples are read from the JobMasters when scraped (prom-client's collect
 * callback): nothing is updated between scrapes, and series of subtasks that are gone (an earlier
 * attempt) disappear with them.
 */
export function collectedFamily(registry: Registry, type: 'gauge' | 'counter', name: string, help: string, labelNames: readonly string[], samples: Samples): void {
  const common = { name, help, labelNames, registers: [registry] };
  if (type === 'gauge') {
    new Gauge({
      ...common,
      collect() {
        this.reset();
        for (const [labels, value] of samples()) this.set(labels, Number.isFinite(value) ? value : 0);
      },
    });
  } else {
    new Counter({
      ...common,
      collect() {
        this.reset();
        for (const [labels, value] of samples()) this.inc(labels, Number.isFinite(value) && value > 0 ? value : 0);
      },
    });
  }
}
