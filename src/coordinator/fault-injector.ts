import type { JobGraph } from '../graph/job-graph.ts';

export interface FaultInjectionOptions {
  /** How many task failures to make during the run. */
  readonly failures: number;
  readonly seed: number;
  /** Only vertices whose name contains this text (e.g. 'Sum'); all vertices otherwise. */
  readonly vertexNameContains?: string;
  readonly minRecords?: number;
  readonly maxRecords?: number;
}

export interface PlannedFailure {
  readonly vertexId: string;
  readonly subtask: number;
  readonly afterRecords: number;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Plans task failures at seeded random points: one armed per attempt, in a random subtask, after
 * a random number of records (or at the end of that subtask's input if it has fewer).
 */
export class FaultInjector {
  readonly #options: FaultInjectionOptions;
  readonly #random: () => number;
  #made = 0;

  constructor(options: FaultInjectionOptions) {
    this.#options = options;
    this.#random = seededRandom(options.seed);
  }

  get remaining(): number {
    return this.#options.failures - this.#made;
  }

  get made(): number {
    return this.#made;
  }

  /** The failure to arm in the next attempt, if any are left. */
  next(graph: JobGraph): PlannedFailure | undefined {
    if (this.remaining <= 0) return undefined;
    const filter = this.#options.vertexNameContains;
    const vertices = graph.vertices.filter((v) => !filter || v.name.includes(filter));
    if (vertices.length === 0) throw new Error(`fault injection: no vertex name contains '${filter}'`);
    const vertex = vertices[Math.floor(this.#random() * vertices.length)]!;
    const subtask = Math.floor(this.#random() * vertex.parallelism);
    const min = this.#options.minRecords ?? 100;
    const max = Math.max(min, this.#options.maxRecords ?? 50_000);
    const afterRecords = min + Math.floor(this.#random() * (max - min + 1));
    return { vertexId: vertex.id, subtask, afterRecords };
  }

  /** An armed failure has fired. */
  fired(): void {
    this.#made++;
  }
}
