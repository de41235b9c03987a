// What kafkajs 2.2.4 (pinned) does not expose and an exactly-once sink needs, as Flink's Kafka
// sink gets it from the Java client by reflection: the producer id and epoch of a transactional
// producer (to commit its transaction from another producer after a restore), and raw
// InitProducerId / EndTxn requests to a transactional id's coordinator (to commit a restored
// transaction and to fence what a killed run left open).
import { createRequire } from 'node:module';
import type { Kafka } from 'kafkajs';

const require = createRequire(import.meta.url);

export interface ProducerIdentity {
  readonly producerId: string;
  readonly producerEpoch: number;
}

interface RawBroker {
  initProducerId(r: { transactionalId: string; transactionTimeout: number }): Promise<{ producerId: string; producerEpoch: number }>;
  endTxn(r: { transactionalId: string; producerId: string; producerEpoch: number; transactionResult: boolean }): Promise<unknown>;
}

interface RawCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(r: { groupId: string; coordinatorType: number }): Promise<RawBroker>;
}

const TRANSACTION_COORDINATOR = 1;
/** Per transactional id, what its last InitProducerId in this thread answered. */
const identities = new Map<string, ProducerIdentity>();
let patched = false;

/** Every InitProducerId answer in this thread is remembered by transactional id (kafkajs keeps it private). */
function rememberProducerIds(): void {
  if (patched) return;
  patched = true;
  const Broker = require('kafkajs/src/broker/index.js') as { prototype: RawBroker };
  const original = Broker.prototype.initProducerId;
  Broker.prototype.initProducerId = async function (this: RawBroker, r) {
    const answer = await original.call(this, r);
    if (r.transactionalId) identities.set(r.transactionalId, { producerId: String(answer.producerId), producerEpoch: answer.producerEpoch });
    return answer;
  };
}

/** The producer id and epoch kafkajs got for a transactional id (call after its first transaction began). */
export function producerIdentity(transactionalId: string): ProducerIdentity | undefined {
  return identities.get(transactionalId);
}

export function watchProducerIds(): void {
  rememberProducerIds();
}

/** Raw transaction requests over a client's own connections. */
export class TransactionCoordinators {
  readonly #cluster: RawCluster;
  #connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    const create = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
    if (create === undefined) throw new Error('kafkajs internals changed: no createCluster (the Kafka sink needs kafkajs 2.2.4)');
    this.#cluster = (kafka as unknown as Record<symbol, (o: object) => RawCluster>)[create]!({ allowAutoTopicCreation: false });
  }

  async #coordinator(transactionalId: string): Promise<RawBroker> {
    this.#connected ??= this.#cluster.connect();
    await this.#connected;
    return this.#cluster.findGroupCoordinator({ groupId: transactionalId, coordinatorType: TRANSACTION_COORDINATOR });
  }

  /** InitProducerId: aborts the id's open transaction and fences its producer; epoch 0 means the id was never used. */
  async initProducerId(transactionalId: string, transactionTimeoutMs: number): Promise<ProducerIdentity> {
    const a = await (await this.#coordinator(transactionalId)).initProducerId({ transactionalId, transactionTimeout: transactionTimeoutMs });
    return { producerId: String(a.producerId), producerEpoch: a.producerEpoch };
  }

  /** EndTxn for a transaction another producer began: commits (or aborts) it as its own producer would. */
  async endTransaction(transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<void> {
    await (await this.#coordinator(transactionalId)).endTxn({ transactionalId, producerId: identity.producerId, producerEpoch: identity.producerEpoch, transactionResult: commit });
  }

  async close(): Promise<void> {
    if (this.#connected) await this.#cluster.disconnect().catch(() => {});
  }
}
