import type { Producer, Transaction } from 'kafkajs';
import type { KafkaCommittable } from './kafka-committable.ts';

/** A transaction whose producer still runs in this thread: committed through it, not resumed. */
export interface LiveTransaction {
  readonly producer: Producer;
  readonly transaction: Transaction;
  readonly committable: KafkaCommittable;
}

/** Pre-committed transactions by transactional id (the writer and committer of a subtask share a thread). */
export const liveTransactions = new Map<string, LiveTransaction>();

/** Ends a live transaction's producer (its transaction, if still open, stays to be committed elsewhere or aborted by a fence). */
export async function dropLive(transactionalId: string): Promise<void> {
  const live = liveTransactions.get(transactionalId);
  liveTransactions.delete(transactionalId);
  await live?.producer.disconnect().catch(() => {});
}
