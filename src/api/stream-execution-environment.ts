import type { ConfigKey, ConsistencyMode, WeirConfig } from '../config/configuration.ts';
import { parseConfigValue } from '../config/configuration.ts';
import { DataStream } from './data-stream.ts';
import type { Source } from './source.ts';
import type { OperatorSettings, Transformation, TransformationSpec } from './transformation.ts';
import { WatermarkStrategy } from './watermark-strategy.ts';

/** A source's settings: an operator's, and how its records get timestamps and watermarks (made per split). */
export interface SourceSettings<T> extends OperatorSettings {
  watermarks?: WatermarkStrategy<T>;
}

export interface CheckpointingOptions {
  /** Milliseconds or a duration string such as '1 s'. */
  interval: number | string;
  mode?: ConsistencyMode;
  timeout?: number | string;
  minPause?: number | string;
  maxConcurrent?: number;
  tolerableFailures?: number;
  unaligned?: boolean;
  alignedTimeout?: number | string;
}

/**
 * What a job module's default export is handed: it records the dataflow and the job's own
 * settings. Nothing runs until the runtime takes the recorded graph.
 */
export class StreamExecutionEnvironment {
  readonly #transformations: Transformation[] = [];
  readonly #settings: Partial<Record<ConfigKey, unknown>> = {};
  #nextId = 1;

  /** The settings the job made itself; the command line may override them. */
  get jobSettings(): Readonly<Partial<WeirConfig>> {
    return this.#settings as Partial<WeirConfig>;
  }

  /** @internal What the job defined so far, for the planner. */
  get transformations(): readonly Transformation[] {
    return this.#transformations;
  }

  set<K extends ConfigKey>(key: K, value: WeirConfig[K] | string): this {
    this.#settings[key] = parseConfigValue(key, value);
    return this;
  }

  setParallelism(parallelism: number): this {
    return this.set('parallelism.default', parallelism);
  }

  /** The job's name (pipeline.name), shown by the REST API, the dashboard and `weir list`; `weir run --name` overrides it. */
  setJobName(name: string): this {
    if (typeof name !== 'string' || name.trim() === '') throw new TypeError(`setJobName needs a non-empty name, got ${JSON.stringify(name)}`);
    return this.set('pipeline.name', name);
  }

  setMaxParallelism(maxParallelism: number): this {
    return this.set('pipeline.max-parallelism', maxParallelism);
  }

  enableCheckpointing(options: CheckpointingOptions | number): this {
    const o = typeof options === 'number' ? { interval: options } : options;
    this.set('execution.checkpointing.interval', parseConfigValue('execution.checkpointing.interval', o.interval));
    if (o.mode) this.set('execution.checkpointing.mode', o.mode);
    if (o.timeout !== undefined) this.set('execution.checkpointing.timeout', parseConfigValue('execution.checkpointing.timeout', o.timeout));
    if (o.minPause !== undefined) this.set('execution.checkpointing.min-pause', parseConfigValue('execution.checkpointing.min-pause', o.minPause));
    if (o.maxConcurrent !== undefined) this.set('execution.checkpointing.max-concurrent-checkpoints', o.maxConcurrent);
    if (o.tolerableFailures !== undefined) this.set('execution.checkpointing.tolerable-failed-checkpoints', o.tolerableFailures);
    if (o.unaligned !== undefined) this.set('execution.checkpointing.unaligned.enabled', o.unaligned);
    if (o.alignedTimeout !== undefined) {
      this.set('execution.checkpointing.aligned-checkpoint-timeout', parseConfigValue('execution.checkpointing.aligned-checkpoint-timeout', o.alignedTimeout));
    }
    return this;
  }

  /**
   * A stream from a source. `watermarks` (a WatermarkStrategy) makes timestamps and watermarks
   * per split, as Flink's `env.fromSource(source, strategy, name)`; without one, records keep the
   * timestamps the source gives them and no watermarks are made (the end of input still sends
   * the final one).
   */
  fromSource<T>(source: Source<T, any>, settings: SourceSettings<T> = {}): DataStream<T> {
    const { watermarks, ...operatorSettings } = settings;
    if (watermarks !== undefined && !(watermarks instanceof WatermarkStrategy)) {
      throw new TypeError('fromSource: watermarks must be a WatermarkStrategy (WatermarkStrategy.forBoundedOutOfOrderness(...) and the like)');
    }
    return new DataStream<T>(this, this.addTransformation({ kind: 'source', source, watermarks: watermarks as WatermarkStrategy<unknown> | undefined }, [], operatorSettings));
  }

  /** @internal Used by DataStream to record a step of the dataflow. */
  addTransformation(spec: TransformationSpec, inputs: readonly Transformation[], settings: OperatorSettings): Transformation {
    for (const input of inputs) {
      if (!this.#transformations.includes(input)) {
        throw new TypeError('a stream from another StreamExecutionEnvironment cannot be used here');
      }
    }
    const t: Transformation = { id: this.#nextId++, spec, inputs, settings: { ...settings }, createdAt: callerLocation() };
    this.#transformations.push(t);
    return t;
  }
}

/** The first stack frame outside weir's own api folder: where the user wrote the call. */
function callerLocation(): string | undefined {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  const frame = stack.find((line) => !line.includes('/src/api/'));
  return frame?.trim().replace(/^at\s+/, '');
}
