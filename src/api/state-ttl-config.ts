import { durationArg, type DurationArg } from './duration-arg.ts';

/** When an entry's last-access timestamp moves (Flink's StateTtlConfig.UpdateType). */
export type TtlUpdateType = 'OnCreateAndWrite' | 'OnReadAndWrite';
/** Whether an expired entry not yet cleaned up may still be read (Flink's StateTtlConfig.StateVisibility). */
export type TtlStateVisibility = 'NeverReturnExpired' | 'ReturnExpiredIfNotCleanedUp';
/** Only processing time, as in Flink. */
export type TtlTimeCharacteristic = 'ProcessingTime';

/** How expired entries are removed besides on read, which always happens (Flink's CleanupStrategies). */
export interface TtlCleanup {
  /** Full snapshots (checkpoints and savepoints) leave expired entries out. */
  readonly fullSnapshot: boolean;
  /**
   * Entries of the state checked per access (and, with `everyRecord`, per record the operator
   * processes), going round all of them: expired state does not stay forever when its keys are
   * never read again. undefined: off.
   */
  readonly incremental: { readonly cleanupSize: number; readonly everyRecord: boolean } | undefined;
}

/** Flink's default background cleanup for heap state: 5 entries per access. */
const DEFAULT_INCREMENTAL = { cleanupSize: 5, everyRecord: false } as const;

/**
 * Time to live of keyed state (Flink's StateTtlConfig), set on a state descriptor with
 * `enableTimeToLive`: an entry older than `ttlMs` since its last write (or read, with
 * OnReadAndWrite) is expired. Per element for list state and per entry for map state. The
 * timestamps are stored with the values, so expiry holds across checkpoint and restore.
 */
export class StateTtlConfig {
  readonly ttlMs: number;
  readonly updateType: TtlUpdateType;
  readonly stateVisibility: TtlStateVisibility;
  readonly timeCharacteristic: TtlTimeCharacteristic;
  readonly cleanup: TtlCleanup;

  private constructor(b: StateTtlConfigBuilder) {
    this.ttlMs = b.ttlMs;
    this.updateType = b.updateType;
    this.stateVisibility = b.stateVisibility;
    this.timeCharacteristic = b.timeCharacteristic;
    this.cleanup = { fullSnapshot: b.fullSnapshot, incremental: b.background ? (b.incremental ?? DEFAULT_INCREMENTAL) : b.incremental };
  }

  /** `ttl`: milliseconds or a duration such as '10 min'. */
  static newBuilder(ttl: DurationArg): StateTtlConfigBuilder {
    return new StateTtlConfigBuilder(durationArg(ttl, 'StateTtlConfig.newBuilder', 'ttl', true), (b) => new StateTtlConfig(b));
  }
}

export class StateTtlConfigBuilder {
  ttlMs: number;
  updateType: TtlUpdateType = 'OnCreateAndWrite';
  stateVisibility: TtlStateVisibility = 'NeverReturnExpired';
  timeCharacteristic: TtlTimeCharacteristic = 'ProcessingTime';
  fullSnapshot = false;
  incremental: TtlCleanup['incremental'] = undefined;
  /** Flink cleans up in the background by default (incrementally on heap); disableCleanupInBackground turns it off. */
  background = true;
  readonly #make: (b: StateTtlConfigBuilder) => StateTtlConfig;

  constructor(ttlMs: number, make: (b: StateTtlConfigBuilder) => StateTtlConfig) {
    this.ttlMs = ttlMs;
    this.#make = make;
  }

  setTtl(ttl: DurationArg): this {
    this.ttlMs = durationArg(ttl, 'StateTtlConfig.setTtl', 'ttl', true);
    return this;
  }

  setUpdateType(type: TtlUpdateType): this {
    if (type !== 'OnCreateAndWrite' && type !== 'OnReadAndWrite') throw new TypeError(`StateTtlConfig.setUpdateType: 'OnCreateAndWrite' or 'OnReadAndWrite', got ${JSON.stringify(type)}`);
    this.updateType = type;
    return this;
  }

  updateTtlOnCreateAndWrite(): this {
    return this.setUpdateType('OnCreateAndWrite');
  }

  updateTtlOnReadAndWrite(): this {
    return this.setUpdateType('OnReadAndWrite');
  }

  setStateVisibility(visibility: TtlStateVisibility): this {
    if (visibility !== 'NeverReturnExpired' && visibility !== 'ReturnExpiredIfNotCleanedUp') {
      throw new TypeError(`StateTtlConfig.setStateVisibility: 'NeverReturnExpired' or 'ReturnExpiredIfNotCleanedUp', got ${JSON.stringify(visibility)}`);
    }
    this.stateVisibility = visibility;
    return this;
  }

  neverReturnExpired(): this {
    return this.setStateVisibility('NeverReturnExpired');
  }

  returnExpiredIfNotCleanedUp(): this {
    return this.setStateVisibility('ReturnExpiredIfNotCleanedUp');
  }

  setTtlTimeCharacteristic(characteristic: TtlTimeCharacteristic): this {
    if (characteristic !== 'ProcessingTime') throw new TypeError(`StateTtlConfig.setTtlTimeCharacteristic: only 'ProcessingTime' is supported (as in Flink), got ${JSON.stringify(characteristic)}`);
    this.timeCharacteristic = characteristic;
    return this;
  }

  cleanupFullSnapshot(): this {
    this.fullSnapshot = true;
    return this;
  }

  /** `cleanupSize` entries checked per state access; with `runCleanupForEveryRecord`, also per record processed. */
  cleanupIncrementally(cleanupSize: number, runCleanupForEveryRecord = false): this {
    if (!Number.isInteger(cleanupSize) || cleanupSize <= 0) throw new TypeError(`StateTtlConfig.cleanupIncrementally: cleanupSize must be a whole number above 0, got ${String(cleanupSize)}`);
    this.incremental = { cleanupSize, everyRecord: runCleanupForEveryRecord };
    return this;
  }

  disableCleanupInBackground(): this {
    this.background = false;
    return this;
  }

  build(): StateTtlConfig {
    return this.#make(this);
  }
}
