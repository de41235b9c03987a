/** A job module that cannot be used: names the file and the problem. */
export class JobModuleError extends Error {
  readonly modulePath: string;
  constructor(modulePath: string, problem: string, cause?: unknown) {
    super(`job module ${modulePath}: ${problem}`, cause === undefined ? undefined : { cause });
    this.name = 'JobModuleError';
    this.modulePath = modulePath;
  }
}
