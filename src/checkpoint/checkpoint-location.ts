import { join, resolve } from 'node:path';

/**
 * Checkpoint and savepoint locations are strings the storage understands: a directory, or
 * `nats-obj://<bucket>/<path>` for the JetStream object store, whose objects are named
 * `<path>/<file>`.
 */
export const NATS_OBJECT_SCHEME = 'nats-obj://';

export function isNatsObjectLocation(location: string): boolean {
  return location.startsWith(NATS_OBJECT_SCHEME);
}

export interface NatsObjectLocation {
  readonly bucket: string;
  /** Without leading or trailing slashes; '' for the bucket's root. */
  readonly path: string;
}

export class CheckpointLocationError extends Error {
  readonly location: string;
  constructor(location: string, problem: string) {
    super(`'${location}': ${problem}`);
    this.name = 'CheckpointLocationError';
    this.location = location;
  }
}

export function parseNatsObjectLocation(location: string): NatsObjectLocation {
  if (!isNatsObjectLocation(location)) throw new CheckpointLocationError(location, `not a ${NATS_OBJECT_SCHEME}<bucket>/<path> location`);
  const rest = location.slice(NATS_OBJECT_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const path = (slash < 0 ? '' : rest.slice(slash + 1)).split('/').filter((p) => p !== '' && p !== '.').join('/');
  if (!/^[A-Za-z0-9_-]+$/.test(bucket)) throw new CheckpointLocationError(location, "the bucket name may hold only letters, digits, '-' and '_'");
  if (path.split('/').includes('..')) throw new CheckpointLocationError(location, "'..' is not allowed in an object store path");
  return { bucket, path };
}

export function natsObjectLocation(l: NatsObjectLocation): string {
  return `${NATS_OBJECT_SCHEME}${l.bucket}${l.path ? `/${l.path}` : ''}`;
}

/** `base` and a child name, in the base's scheme. */
export function childLocation(base: string, name: string): string {
  if (!isNatsObjectLocation(base)) return join(base, name);
  const l = parseNatsObjectLocation(base);
  return natsObjectLocation({ bucket: l.bucket, path: l.path ? `${l.path}/${name}` : name });
}

/** A location as given on a command line: directories made absolute, object store URLs as they are. */
export function resolveLocation(location: string): string {
  return isNatsObjectLocation(location) ? location : resolve(location);
}
