import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BinlogPositionError, compareBinlogPositions, formatBinlogPosition } from '../../../src/connectors/mysql/binlog-position.ts';

test('orders by the file number, then the offset', () => {
  const a = { file: 'binlog.000003', pos: 1234 };
  assert.equal(compareBinlogPositions(a, { file: 'binlog.000003', pos: 1234 }), 0);
  assert.equal(compareBinlogPositions(a, { file: 'binlog.000003', pos: 1235 }), -1);
  assert.equal(compareBinlogPositions(a, { file: 'binlog.000003', pos: 4 }), 1);
  // A later file is later whatever the offset.
  assert.equal(compareBinlogPositions(a, { file: 'binlog.000004', pos: 4 }), -1);
  assert.equal(compareBinlogPositions({ file: 'binlog.000010', pos: 4 }, { file: 'binlog.000009', pos: 99999 }), 1);
});

test('compares file numbers as numbers, beyond six digits too', () => {
  assert.equal(compareBinlogPositions({ file: 'mysql-bin.999999', pos: 500 }, { file: 'mysql-bin.1000000', pos: 4 }), -1);
});

test('ignores the GTID when ordering', () => {
  assert.equal(compareBinlogPositions({ file: 'binlog.000001', pos: 10, gtid: '0-1-9' }, { file: 'binlog.000001', pos: 10 }), 0);
});

test('refuses to order files of different binlogs', () => {
  assert.throws(
    () => compareBinlogPositions({ file: 'binlog.000001', pos: 4 }, { file: 'mysql-bin.000001', pos: 4 }),
    (e: unknown) => e instanceof BinlogPositionError && /different binlog base names 'binlog' and 'mysql-bin'/.test(e.message) && e.a === 'binlog.000001:4',
  );
  assert.throws(() => compareBinlogPositions({ file: 'binlog', pos: 4 }, { file: 'binlog.000001', pos: 4 }), BinlogPositionError);
});

test('formats file:offset, with the GTID when known', () => {
  assert.equal(formatBinlogPosition({ file: 'binlog.000003', pos: 1234 }), 'binlog.000003:1234');
  assert.equal(formatBinlogPosition({ file: 'binlog.000003', pos: 1234, gtid: '0-1-57' }), 'binlog.000003:1234 gtid 0-1-57');
});
