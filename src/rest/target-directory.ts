import { isAbsolute } from 'node:path';

/**
 * A savepoint target given over REST, as it was given, or a 400: a relative directory would be
 * resolved against the JobManager's working directory, which the caller neither sees nor chose
 * (the CLI makes its own relative paths absolute before sending them). Locations with a scheme
 * (nats-obj://, file://) go to the storage as before.
 */
export function targetDirectory(field: string, dir: string | null | undefined): string | undefined {
  if (dir === null || dir === undefined || isAbsolute(dir) || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(dir)) return dir ?? undefined;
  throw new RelativeTargetError(field, dir);
}

/** A 400: the reason names the directory the JobManager would have used. */
export class RelativeTargetError extends Error {
  readonly statusCode = 400;
  readonly field: string;
  readonly directory: string;

  constructor(field: string, directory: string) {
    super(`${field} '${directory}' is relative: it would be resolved against the JobManager's working directory (${process.cwd()}); give an absolute path or a URI such as nats-obj://<bucket>/<path>`);
    this.name = 'RelativeTargetError';
    this.field = field;
    this.directory = directory;
  }
}
