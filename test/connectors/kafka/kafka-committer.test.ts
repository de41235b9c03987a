// The Kafka committer with fakes for the brokers' transaction coordinators and for a producer of
// this thread: a commit that failed part way through the live producer (kafkajs then refuses that
// transaction for good) is retried as the producer, by EndTxn with its id and epoch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Producer, Transaction } from 'kafkajs';
import { KafkaCommitter } from '../../../src/connectors/kafka/kafka-committer.ts';
import type { KafkaCommittable } from '../../../src/connectors/kafka/kafka-committable.ts';
import type { TransactionCoordinators } from '../../../src/connectors/kafka/kafkajs-internals.ts';
import { liveTransactions } from '../../../src/connectors/kafka/live-transactions.ts';
import { createLogger } from '../../../src/index.ts';

/** As kafkajs's: once commit() is called the transaction is no longer active, whether EndTxn got through or not. */
function transactionFailingFirstCommit(): Transaction & { commits: number } {
  let ended = false;
  const t = {
    commits: 0,
    isActive: () => !ended,
    commit: async () => {
      if (ended) throw new Error('Cannot continue to use transaction once ended');
      ended = true;
      t.commits++;
      throw new Error('Closed connection');
    },
    abort: async () => {
      ended = true;
    },
  };
  return t as unknown as Transaction & { commits: number };
}

test('a commit that failed part way through the live producer is retried as the producer (EndTxn with its id and epoch), not through the ended kafkajs transaction', async () => {
  const ended: Array<{ id: string; producerId: string; producerEpoch: number; commit: boolean }> = [];
  const coordinators = {
    endTransaction: async (id: string, p: { producerId: string; producerEpoch: number }, commit: boolean) => void ended.push({ id, producerId: p.producerId, producerEpoch: p.producerEpoch, commit }),
    initProducerId: async () => ({ producerId: '1', producerEpoch: 0 }),
    close: async () => {},
  } as unknown as TransactionCoordinators;
  const c: KafkaCommittable = { subtask: 0, slot: 7, checkpointId: 7, transactionalId: 'weir-test-0-7', producerId: '4242', producerEpoch: 3, records: 12 };
  const transaction = transactionFailingFirstCommit();
  let disconnected = 0;
  liveTransactions.set(c.transactionalId, { producer: { disconnect: async () => void disconnected++ } as unknown as Producer, transaction, committable: c });
  const committer = new KafkaCommitter({ coordinators, prefix: 'weir-test', subtask: 0, parallelism: 1, transactionTimeoutMs: 60_000, target: 'test', events: undefined, log: createLogger({ level: 'error', write: () => {} }) });
  try {
    await assert.rejects(committer.commit([c]), /Closed connection/);
    assert.equal(transaction.commits, 1);
    assert.deepEqual(ended, [], 'nothing sent as the producer yet');
    await committer.commit([c]);
    assert.deepEqual(ended, [{ id: 'weir-test-0-7', producerId: '4242', producerEpoch: 3, commit: true }]);
    assert.equal(liveTransactions.has(c.transactionalId), false, 'the producer is let go once committed');
    assert.equal(disconnected, 1);
  } finally {
    liveTransactions.delete(c.transactionalId);
    await committer.close();
  }
});
