// A CDC dialect in memory for the core's unit tests: one table `d.t` with integer keys, log
// positions as numbers, no server.
import type { CdcCatalog, CdcDialect, CdcReaderSession, CdcTable } from '../../../src/connectors/cdc/cdc-dialect.ts';
import type { CdcRecordSource } from '../../../src/connectors/cdc/change-record.ts';

export const TABLE: CdcTable = { db: 'd', table: 't', keyColumn: 'id', keyKind: 'integer' };

export function fakeDialect(o: { min: number; max: number; rows: number; session?: CdcReaderSession<number, CdcRecordSource> }): CdcDialect<number, CdcRecordSource> {
  const catalog: CdcCatalog<number> = {
    check: async () => {},
    startup: async () => ({ snapshot: true }),
    listTables: async () => [TABLE],
    keyRange: async () => ({ min: o.min, max: o.max, approxRows: o.rows }),
    keyAtOffset: async () => {
      throw new Error('evenly spread keys are cut by arithmetic');
    },
    keyAfter: async () => null,
    close: async () => {},
  };
  return {
    logName: 'the fake log',
    logMetricPrefix: 'fake',
    comparePositions: (a, b) => a - b,
    formatPosition: (p) => `#${p}`,
    connectCatalog: async () => catalog,
    connectReader: async () => {
      if (!o.session) throw new Error('no reader session in this test');
      return o.session;
    },
  };
}
