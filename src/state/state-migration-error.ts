import type { SerializerSnapshot } from '../serialization/serializer-snapshot.ts';

/**
 * Restored state that the current job cannot read as it is: names operator uid, state and both
 * serializers (their versions always; their snapshots, kind, version and schema, when the restore
 * compared them).
 */
export class StateMigrationError extends Error {
  /** The same snapshot is restored into the same job after a restart: the job fails at once. */
  readonly unrecoverable = true;
  readonly uid: string;
  readonly stateName: string;
  readonly storedVersion: number;
  readonly currentVersion: number;
  /** What wrote the state and what the job's descriptor declares now. */
  readonly stored: SerializerSnapshot | undefined;
  readonly current: SerializerSnapshot | undefined;
  /** Where in the value the two types part (`$.count`), when the schemas are what differ. */
  readonly path: string | undefined;
  constructor(
    uid: string,
    stateName: string,
    storedVersion: number,
    currentVersion: number,
    problem?: string,
    details: { readonly stored?: SerializerSnapshot; readonly current?: SerializerSnapshot; readonly path?: string; readonly cause?: unknown } = {},
  ) {
    super(
      problem ??
        `state '${stateName}' of operator uid '${uid}' was written with serializer version ${storedVersion}, the job now declares version ${currentVersion}, and its descriptor has no upgrade function: add { upgrade: (value, fromVersion) => ... } to the state descriptor`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = 'StateMigrationError';
    this.uid = uid;
    this.stateName = stateName;
    this.storedVersion = storedVersion;
    this.currentVersion = currentVersion;
    this.stored = details.stored;
    this.current = details.current;
    this.path = details.path;
  }
}
