// MySQL GTID sets, which no server here can check: parsing, merging, and the binary form of
// COM_BINLOG_DUMP_GTID / PREVIOUS_GTIDS laid out by hand from the protocol documentation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlGtidSet } from '../../../src/connectors/mysql/mysql-gtid-set.ts';
import { MySqlGtidStrategy } from '../../../src/connectors/mysql/mysql-gtid-strategy.ts';

const A = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const B = '00000000-0000-0000-0000-000000000001';

test('parses, merges adjacent intervals and prints MySQL style', () => {
  const set = MySqlGtidSet.parse(`${A.toUpperCase()}:1-5:7,\n${B}:3`);
  set.add(`${A}:6`);
  set.add(`${B}:4`);
  set.add(`${B}:10`);
  assert.equal(set.toString(), `${B}:3-4:10,${A}:1-7`);
});

test('refuses tagged GTIDs and malformed elements', () => {
  assert.throws(() => MySqlGtidSet.parse(`${A}:mytag:1-5`), /tagged GTIDs are not supported/);
  assert.throws(() => MySqlGtidSet.parse('not-a-uuid:1'), /not a MySQL GTID set element/);
});

test('encodes sids with [start, end) intervals, and decodes back', () => {
  const set = MySqlGtidSet.parse(`${A}:1-5:7`);
  const expected = Buffer.concat([
    u64(1n),
    Buffer.from(A.replace(/-/g, ''), 'hex'),
    u64(2n),
    u64(1n),
    u64(6n),
    u64(7n),
    u64(8n),
  ]);
  assert.deepStrictEqual(set.encode(), expected);
  assert.equal(MySqlGtidSet.decode(expected).toString(), `${A}:1-5:7`);
});

test('COM_BINLOG_DUMP_GTID carries flags, server id, no file, position 4 and the set', () => {
  const payload = new MySqlGtidStrategy('8.0.36').dumpPayload({ kind: 'gtid', gtid: `${A}:1-5` }, 1234);
  const set = MySqlGtidSet.parse(`${A}:1-5`).encode();
  const expected = Buffer.concat([Buffer.from([0x1e]), u16(4), u32(1234), u32(0), u64(4n), u32(set.length), set]);
  assert.deepStrictEqual(payload, expected);
});

test('COM_BINLOG_DUMP carries position, flags, server id and the file name', () => {
  const payload = new MySqlGtidStrategy('8.0.36').dumpPayload({ kind: 'file', file: 'binlog.000002', pos: 1234 }, 7);
  assert.deepStrictEqual(payload, Buffer.concat([Buffer.from([0x12]), u32(1234), u16(0), u32(7), Buffer.from('binlog.000002')]));
});

test('the executed set is unknown after a file start until PREVIOUS_GTIDS says it', () => {
  const tracker = new MySqlGtidStrategy('8.0.36').tracker({ kind: 'file', file: 'binlog.000002', pos: 1234 });
  tracker.add(`${A}:9`);
  assert.equal(tracker.toString(), undefined);
  tracker.merge(`${A}:1-9`);
  tracker.add(`${A}:10`);
  assert.equal(tracker.toString(), `${A}:1-10`);
});

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}
