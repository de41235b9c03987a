import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SourceReaderContext } from '../../../src/api/source.ts';
import type { CdcReaderSession } from '../../../src/connectors/cdc/cdc-dialect.ts';
import { CdcSourceReader } from '../../../src/connectors/cdc/cdc-source-reader.ts';
import type { CdcRecordSource } from '../../../src/connectors/cdc/change-record.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { fakeDialect } from './fake-dialect.ts';

test("a reader told the snapshot is finished lets its session release what chunk reads held (PostgreSQL: a backfill slot holding WAL back), also when it never follows the log", async () => {
  let released = 0;
  const session = { releaseChunkReads: async () => void released++, close: async () => {} } as unknown as CdcReaderSession<number, CdcRecordSource>;
  const ctx = {
    jobId: 'j',
    jobName: 'j',
    operatorName: 'cdc',
    operatorUid: 'cdc',
    subtaskIndex: 1,
    parallelism: 2,
    maxParallelism: 128,
    attemptNumber: 0,
    log: createLogger({ level: 'error', write: () => {} }),
    sendSplitRequest: () => {},
    sendSourceEvent: () => {},
  } satisfies SourceReaderContext;
  const reader = new CdcSourceReader(ctx, fakeDialect({ min: 1, max: 10, rows: 10, session }));
  await reader.start();
  reader.handleSourceEvent({ kind: 'chunks-acknowledged', ids: ['d.t#0'] });
  assert.equal(released, 0, 'an acknowledgement releases nothing');
  reader.handleSourceEvent({ kind: 'snapshot-finished' });
  assert.equal(released, 1);
  await reader.close();
});
