/** A config file that cannot be used as a whole (unreadable, not YAML/JSON, not a map): names the file. */
export class ConfigFileError extends Error {
  readonly path: string;
  readonly problem: string;
  constructor(path: string, problem: string, cause?: unknown) {
    super(`config file ${path}: ${problem}`, cause === undefined ? undefined : { cause });
    this.name = 'ConfigFileError';
    this.path = path;
    this.problem = problem;
  }
}
