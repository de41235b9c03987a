import { defaultSerializer } from '../../api/serializer.ts';
import type { WindowFunctionSpec } from '../../api/windowing/window-definition.ts';

/**
 * How a window's contents are kept and combined: a reduce keeps the folded record, an aggregate
 * its accumulator, a process window function the list of records.
 */
export interface WindowAggregator {
  /** The contents with one more record (the first: `contents` undefined). May change `contents` in place. */
  add(contents: unknown, value: unknown): unknown;
  /** Two windows' contents as one (sessions merging): `a` may be changed, `b` is discarded. */
  merge(a: unknown, b: unknown): unknown;
  /** Whether panes can be combined without changing them (reduce, process, aggregate with merge). */
  readonly combines: boolean;
  /** A window's contents from its panes, oldest first; the panes stay as they are (they belong to later windows too). */
  combine(panes: readonly unknown[]): unknown;
  /** What the window function (or the output) gets for these contents. */
  elements(contents: unknown): readonly unknown[];
}

export function windowAggregator(fn: WindowFunctionSpec): WindowAggregator {
  switch (fn.kind) {
    case 'reduce': {
      const reduce = fn.reduce;
      return {
        add: (c, v) => (c === undefined ? v : reduce(c, v)),
        merge: (a, b) => reduce(a, b),
        combines: true,
        // A reduce may change its first argument: it gets a copy of the first pane, never a pane.
        combine: (panes) => {
          let acc = defaultSerializer.copy(panes[0]);
          for (let i = 1; i < panes.length; i++) acc = reduce(acc, panes[i]);
          return acc;
        },
        elements: (c) => [c],
      };
    }
    case 'aggregate': {
      const agg = fn.aggregate;
      const merge = agg.merge?.bind(agg);
      return {
        add: (c, v) => agg.add(v, c === undefined ? agg.createAccumulator() : c),
        merge: (a, b) => merge!(a, b),
        combines: merge !== undefined,
        // Into a fresh accumulator: merge may change its first argument, and the panes stay.
        combine: (panes) => {
          let acc = agg.createAccumulator();
          for (const p of panes) acc = merge!(acc, p);
          return acc;
        },
        elements: (c) => [agg.getResult(c)],
      };
    }
    case 'process':
      return {
        add: (c, v) => {
          if (c === undefined) return [v];
          (c as unknown[]).push(v);
          return c;
        },
        merge: (a, b) => (a as unknown[]).concat(b as unknown[]),
        combines: true,
        combine: (panes) => ([] as unknown[]).concat(...(panes as unknown[][])),
        elements: (c) => c as unknown[],
      };
  }
}
