import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { KafkaUnreachableError } from './kafka-unreachable-error.ts';

/** Where a Kafka connector connects: the bootstrap brokers, and TLS/SASL if the brokers ask for them. */
export interface KafkaConnectionOptions {
  /** host:port, several comma-separated, or a list. */
  readonly bootstrapServers: string | readonly string[];
  readonly ssl?: boolean;
  readonly sasl?: SASLOptions;
  /** How long a connection attempt to one broker may take (ms). Unset: 10 s. */
  readonly connectTimeoutMs?: number;
}

export function brokerList(o: KafkaConnectionOptions): string[] {
  return (typeof o.bootstrapServers === 'string' ? o.bootstrapServers.split(',') : [...o.bootstrapServers]).map((s) => s.trim()).filter((s) => s.length > 0);
}

export function describeBrokers(o: KafkaConnectionOptions): string {
  return brokerList(o).join(',');
}

/** A client of its own for one enumerator, reader, writer or committer; the client's own log is off (its failures surface as errors). */
export function kafkaClient(o: KafkaConnectionOptions, clientId: string): Kafka {
  return new Kafka({
    brokers: brokerList(o),
    clientId: clientId.replace(/[^A-Za-z0-9._-]/g, '_'),
    connectionTimeout: o.connectTimeoutMs ?? 10_000,
    ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
    ...(o.sasl !== undefined ? { sasl: o.sasl } : {}),
    logLevel: logLevel.NOTHING,
  });
}

/** Runs `connect`, turning a connection failure into KafkaUnreachableError naming the bootstrap list. */
export async function connectOrExplain(o: KafkaConnectionOptions, connect: () => Promise<void>): Promise<void> {
  try {
    await connect();
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'KafkaJSConnectionError' || name === 'KafkaJSNonRetriableError' || name === 'KafkaJSNumberOfRetriesExceeded') throw new KafkaUnreachableError(describeBrokers(o), e);
    throw e;
  }
}
