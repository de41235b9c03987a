/** A failure made on purpose (weir run --inject-failures, weir verify); the JobMaster counts it by its type. */
export class InjectedFailure extends Error {
  readonly injected = true;
  constructor(task: string, records: number) {
    super(`injected failure in ${task} after ${records} records`);
    this.name = 'InjectedFailure';
  }
}
