import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { isNatsUnavailable } from './nats-errors.ts';

const STREAM_NOT_FOUND = 10059;
const REPLICAS_NOT_SUPPORTED = 10074;
const INSUFFICIENT_RESOURCES = 10023;
/** "no suitable peers for placement": the meta leader is elected but has not yet heard from enough servers. */
const NO_PEERS = 10005;

/**
 * Why a bucket could not be looked up or made: REPLICAS_NOT_SUPPORTED (a single server asked for
 * replicas), INSUFFICIENT_RESOURCES (too few servers for the replicas, or a cluster whose servers
 * have not all joined yet: JetStream says "insufficient resources" or "no suitable peers for placement"), UNAVAILABLE (no answer in time: JetStream still electing), FAILED.
 */
export type NatsBucketFailure = 'REPLICAS_NOT_SUPPORTED' | 'INSUFFICIENT_RESOURCES' | 'UNAVAILABLE' | 'FAILED';

/** A bucket weir needs that could not be made: names the bucket and, for replicas, the key to change. */
export class NatsBucketError extends Error {
  readonly reason: NatsBucketFailure;
  readonly bucket: string;
  constructor(reason: NatsBucketFailure, bucket: string, problem: string, options?: { cause?: unknown }) {
    super(`NATS bucket '${bucket}': ${problem}`, options);
    this.name = 'NatsBucketError';
    this.reason = reason;
    this.bucket = bucket;
  }
}

/** Binds to a key-value bucket, creating it (with `replicas`) when it does not exist; its operations time out after `timeoutMs`. */
export async function openKeyValueBucket(nc: NatsConnection, bucket: string, replicas: number, timeoutMs: number): Promise<KV> {
  // Creating a replicated bucket takes a RAFT group's election: the client's default timeout, not the operations' short one.
  if (!(await streamExists(nc, `KV_${bucket}`, bucket))) await creating(bucket, replicas, () => new Kvm(nc).create(bucket, { replicas, history: 1 }));
  return new Kvm(jetstream(nc, { timeout: timeoutMs })).open(bucket);
}

/** Binds to an object store, creating it when it does not exist and `create` allows. */
export async function openObjectBucket(nc: NatsConnection, bucket: string, replicas: number, create: boolean): Promise<ObjectStore | undefined> {
  const objm = new Objm(nc);
  if (await streamExists(nc, `OBJ_${bucket}`, bucket)) return objm.open(bucket);
  if (!create) return undefined;
  return creating(bucket, replicas, () => objm.create(bucket, { replicas }));
}

async function streamExists(nc: NatsConnection, stream: string, bucket: string): Promise<boolean> {
  try {
    await (await jetstreamManager(nc)).streams.info(stream);
    return true;
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === STREAM_NOT_FOUND) return false;
    throw new NatsBucketError(unavailableOr(e, 'FAILED'), bucket, `cannot be looked up: ${(e as Error).message}`, { cause: e });
  }
}

async function creating<T>(bucket: string, replicas: number, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (e) {
    const reason = bucketFailureOf(e);
    if (reason === 'REPLICAS_NOT_SUPPORTED' || reason === 'INSUFFICIENT_RESOURCES') {
      throw new NatsBucketError(reason, bucket, `cannot be created with ${replicas} replicas (${(e as Error).message}); a single server needs high-availability.nats.replicas: 1`, { cause: e });
    }
    throw new NatsBucketError(reason, bucket, `cannot be created: ${(e as Error).message}`, { cause: e });
  }
}

/** Why JetStream refused to create a bucket, by its API error code (never by the message). */
export function bucketFailureOf(e: unknown): NatsBucketFailure {
  if (e instanceof JetStreamApiError) {
    if (e.code === REPLICAS_NOT_SUPPORTED) return 'REPLICAS_NOT_SUPPORTED';
    if (e.code === INSUFFICIENT_RESOURCES || e.code === NO_PEERS) return 'INSUFFICIENT_RESOURCES';
  }
  return unavailableOr(e, 'FAILED');
}

function unavailableOr(e: unknown, otherwise: NatsBucketFailure): NatsBucketFailure {
  return e instanceof Error && isNatsUnavailable(e) ? 'UNAVAILABLE' : otherwise;
}
