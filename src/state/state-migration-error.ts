/** Restored state that the current job cannot read as it is: names operator uid, state and versions. */
export class StateMigrationError extends Error {
  readonly uid: string;
  readonly stateName: string;
  readonly storedVersion: number;
  readonly currentVersion: number;
  constructor(uid: string, stateName: string, storedVersion: number, currentVersion: number, problem?: string) {
    super(
      problem ??
        `state '${stateName}' of operator uid '${uid}' was written with serializer version ${storedVersion}, the job now declares version ${currentVersion}, and its descriptor has no upgrade function: add { upgrade: (value, fromVersion) => ... } to the state descriptor`,
    );
    this.name = 'StateMigrationError';
    this.uid = uid;
    this.stateName = stateName;
    this.storedVersion = storedVersion;
    this.currentVersion = currentVersion;
  }
}
