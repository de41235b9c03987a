import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePgOutput, PgOutputFormatError } from '../../../src/connectors/postgres/pgoutput-decoder.ts';
import { UNCHANGED_TOAST } from '../../../src/connectors/postgres/pgoutput-message.ts';
import { parseReplicationMessage, standbyStatusUpdate, pgMicrosToUnixMs } from '../../../src/connectors/postgres/replication-message.ts';
import { parseArrayLiteral, PgArrayLiteralError } from '../../../src/connectors/postgres/pg-array-literal.ts';

// Builders of wire bytes, written from the protocol documentation.
const u8 = (n: number) => Buffer.from([n]);
const u16 = (n: number) => { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; };
const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const u64 = (n: bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(n); return b; };
const str = (s: string) => Buffer.concat([Buffer.from(s), u8(0)]);
const ch = (c: string) => Buffer.from(c);
const text = (s: string) => Buffer.concat([ch('t'), u32(Buffer.byteLength(s)), Buffer.from(s)]);

const Y2K_MS = Date.UTC(2000, 0, 1);

test('pgoutput Begin, Commit, Origin, Relation and Type messages decode field by field', () => {
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('B'), u64(0x1_0000_0010n), u64(1_000_000n), u32(4242)])), {
    tag: 'begin', finalLsn: 0x1_0000_0010n, commitTime: Y2K_MS + 1000, xid: 4242,
  });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('C'), u8(0), u64(16n), u64(24n), u64(0n)])), { tag: 'commit', commitLsn: 16n, endLsn: 24n, commitTime: Y2K_MS });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('O'), u64(7n), str('node_a')])), { tag: 'origin', originLsn: 7n, name: 'node_a' });
  const rel = Buffer.concat([ch('R'), u32(16384), str(''), str('t'), ch('d'), u16(2), u8(1), str('id'), u32(23), u32(0xffffffff), u8(0), str('v'), u32(1043), u32(24)]);
  assert.deepEqual(decodePgOutput(rel), {
    tag: 'relation', relationId: 16384, schema: 'pg_catalog', table: 't', replicaIdentity: 'd',
    columns: [{ key: true, name: 'id', typeOid: 23, typeMod: -1 }, { key: false, name: 'v', typeOid: 1043, typeMod: 24 }],
  });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('Y'), u32(90000), str('public'), str('mood')])), { tag: 'type', typeOid: 90000, schema: 'public', name: 'mood' });
});

test('pgoutput row messages decode tuples with null, unchanged-TOAST and text values, and the old key or row of updates and deletes', () => {
  const tuple = Buffer.concat([u16(3), text('1'), ch('n'), ch('u')]);
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('I'), u32(5), ch('N'), tuple])), { tag: 'insert', relationId: 5, newTuple: ['1', null, UNCHANGED_TOAST] });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('U'), u32(5), ch('N'), tuple])), { tag: 'update', relationId: 5, oldKind: null, oldTuple: null, newTuple: ['1', null, UNCHANGED_TOAST] });
  const key = Buffer.concat([u16(1), text('é')]);
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('U'), u32(5), ch('K'), key, ch('N'), tuple])), { tag: 'update', relationId: 5, oldKind: 'K', oldTuple: ['é'], newTuple: ['1', null, UNCHANGED_TOAST] });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('D'), u32(5), ch('O'), tuple])), { tag: 'delete', relationId: 5, oldKind: 'O', oldTuple: ['1', null, UNCHANGED_TOAST] });
  assert.deepEqual(decodePgOutput(Buffer.concat([ch('T'), u32(2), u8(3), u32(5), u32(6)])), { tag: 'truncate', relationIds: [5, 6], cascade: true, restartIdentity: true });
});

test('malformed pgoutput messages fail with the message type named', () => {
  assert.throws(() => decodePgOutput(Buffer.concat([ch('B'), u64(1n)])), (e: unknown) => e instanceof PgOutputFormatError && /truncated/.test(e.message));
  assert.throws(() => decodePgOutput(ch('Z')), (e: unknown) => e instanceof PgOutputFormatError && e.tag === 'Z');
  assert.throws(() => decodePgOutput(Buffer.concat([ch('I'), u32(5), ch('N'), u16(1), ch('b'), u32(0)])), /binary mode is off/);
  assert.throws(() => decodePgOutput(Buffer.concat([ch('D'), u32(5), ch('N'), u16(0)])), /expected 'K' or 'O'/);
});

test('XLogData and keepalives parse; a standby status update carries write, flush and apply LSNs and the clock', () => {
  const x = parseReplicationMessage(Buffer.concat([ch('w'), u64(100n), u64(200n), u64(2_000_000n), Buffer.from('B...')]));
  assert.deepEqual({ ...x, data: x.kind === 'xlog' ? x.data.toString() : '' }, { kind: 'xlog', walStart: 100n, walEnd: 200n, sendTime: Y2K_MS + 2000, data: 'B...' });
  assert.deepEqual(parseReplicationMessage(Buffer.concat([ch('k'), u64(300n), u64(0n), u8(1)])), { kind: 'keepalive', walEnd: 300n, sendTime: Y2K_MS, replyRequested: true });
  const r = standbyStatusUpdate({ write: 3n, flush: 2n, apply: 1n }, Y2K_MS + 5);
  assert.equal(r.length, 34);
  assert.equal(r.toString('latin1', 0, 1), 'r');
  assert.deepEqual([r.readBigUInt64BE(1), r.readBigUInt64BE(9), r.readBigUInt64BE(17)], [3n, 2n, 1n]);
  assert.equal(pgMicrosToUnixMs(r.readBigInt64BE(25)), Y2K_MS + 5);
  assert.throws(() => parseReplicationMessage(ch('q')), /unexpected replication message 'q'/);
});

test('array literals parse with quoting, escapes, NULLs, nesting, bounds and other delimiters', () => {
  assert.deepEqual(parseArrayLiteral('{}', String), []);
  assert.deepEqual(parseArrayLiteral('{1,NULL,null,-3}', Number), [1, null, null, -3]);
  assert.deepEqual(parseArrayLiteral('{"a b","c,d","e\\"f","NULL","\\\\",""}', String), ['a b', 'c,d', 'e"f', 'NULL', '\\', '']);
  assert.deepEqual(parseArrayLiteral('{{1,2},{3,4}}', Number), [[1, 2], [3, 4]]);
  assert.deepEqual(parseArrayLiteral('[0:1]={7,8}', Number), [7, 8]);
  assert.deepEqual(parseArrayLiteral('{(1,1),(0,0);(2,2),(1,1)}', String, ';'), ['(1,1),(0,0)', '(2,2),(1,1)']);
  for (const bad of ['', '{1,2', '{"a}', '{1}x', '[0:1]']) assert.throws(() => parseArrayLiteral(bad, String), PgArrayLiteralError, bad);
});
