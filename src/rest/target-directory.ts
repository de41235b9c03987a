import { isAbsolute } from 'node:path';
import { isNatsObjectLocation } from '../checkpoint/checkpoint-location.ts';

/**
 * A savepoint target given over REST, as it was given, or a 400: a relative directory would be
 * resolved against the JobManager's working directory, which the caller neither sees nor chose
 * (the CLI makes its own relative paths absolute before sending them). The checkpoint storage's own
 * test tells a location from a directory: any other scheme (file://, s3://) it would take for a
 * relative directory, so it is refused alike.
 */
export function targetDirectory(field: string, dir: string | null | undefined): string | undefined {
  if (dir === null || dir === undefined || isAbsolute(dir) || isNatsObjectLocation(dir)) return dir ?? undefined;
  throw new RelativeTargetError(field, dir);
}

/** A 400: the reason names the directory the JobManager would have used. */
export class RelativeTargetError extends Error {
  readonly statusCode = 400;
  readonly field: string;
  readonly directory: string;

  constructor(field: string, directory: string) {
    super(`${field} '${directory}' is relative: it would be resolved against the JobManager's working directory (${process.cwd()}); give an absolute path or a nats-obj://<bucket>/<path> location`);
    this.name = 'RelativeTargetError';
    this.field = field;
    this.directory = directory;
  }
}
