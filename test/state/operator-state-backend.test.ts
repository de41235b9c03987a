// Operator list state with a declared element type: values leave a snapshot as the bytes of the
// type's codec with its snapshot, come back decoded, migrate to a compatible type, and fail
// naming uid, state and both serializers when the type is not; undeclared state is as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Packr, Unpackr } from 'msgpackr';
import { SerializationError, StateMigrationError, Types } from '../../src/index.ts';
import { OperatorStateBackend, type OperatorStateEntry } from '../../src/state/operator-state-backend.ts';

const Split = Types.struct({ file: Types.string, offset: Types.int });

/** A snapshot as `_metadata` carries it (MessagePack), back as a restore gets it. */
function throughMetadata(snapshot: Map<string, OperatorStateEntry>): Map<string, OperatorStateEntry> {
  const bytes = new Packr({ useRecords: false, moreTypes: true }).pack(Object.fromEntries(snapshot));
  return new Map(Object.entries(new Unpackr({ useRecords: false, moreTypes: true }).unpack(bytes) as Record<string, OperatorStateEntry>));
}

describe('OperatorStateBackend', () => {
  test('a declared type: values are its bytes in the snapshot, and read back by the type', () => {
    const a = new OperatorStateBackend(undefined, 'files');
    a.getListState('splits', { type: Split }).update([{ file: 'a', offset: 3 }, { file: 'b', offset: 2 ** 40 }]);
    const snap = a.snapshot();
    const entry = snap.get('splits')!;
    assert.deepEqual(entry.serializer, { kind: 'weir-types', version: 1, schema: Split });
    assert.ok(entry.values.every((v) => v instanceof Uint8Array));

    const b = new OperatorStateBackend(throughMetadata(snap), 'files');
    assert.deepEqual(b.restoredValues('splits'), [{ file: 'a', offset: 3 }, { file: 'b', offset: 2 ** 40 }]);
    assert.deepEqual(b.getListState('splits', { type: Split }).get(), [{ file: 'a', offset: 3 }, { file: 'b', offset: 2 ** 40 }]);
  });

  test('a compatible change migrates; an incompatible one is a StateMigrationError naming uid, state and both serializers', () => {
    const a = new OperatorStateBackend(undefined, 'files');
    a.getUnionListState('offsets', { type: Types.int }).update([1, 2]);
    const restored = throughMetadata(a.snapshot());
    assert.deepEqual(new OperatorStateBackend(restored, 'files').getUnionListState('offsets', { type: Types.bigint }).get(), [1n, 2n]);
    assert.deepEqual(new OperatorStateBackend(restored, 'files').getUnionListState('offsets').get(), [1, 2], 'undeclared reads any');
    assert.throws(() => new OperatorStateBackend(restored, 'files').getUnionListState('offsets', { type: Types.string }), (e: unknown) => {
      assert.ok(e instanceof StateMigrationError, String(e));
      assert.equal(e.uid, 'files');
      assert.equal(e.stateName, 'offsets');
      assert.deepEqual([e.stored?.schema, e.current?.schema], [Types.int, Types.string]);
      assert.equal(e.message, "operator state 'offsets' of operator uid 'files' was written with serializer weir-types v1 int, the job now uses weir-types v1 string, which cannot read it at $: stored int cannot become string");
      return true;
    });
  });

  test('a value that does not fit its type fails the snapshot, naming uid, state and path', () => {
    const a = new OperatorStateBackend(undefined, 'files');
    a.getListState('splits', { type: Split }).update([{ file: 'a', offset: 1 }, { file: 'b', offset: 1.5 }]);
    assert.throws(() => a.snapshot(), (e: unknown) => e instanceof SerializationError && e.message === "operator uid 'files', state 'splits[1]': cannot serialize $.offset: expected int, got number 1.5");
  });

  test('undeclared state is stored as it is, and copied', () => {
    const a = new OperatorStateBackend(undefined, 'src');
    const values = [{ pos: 1n, m: new Map([[1, 2]]) }];
    a.getListState('_source-splits').update(values);
    const entry = a.snapshot().get('_source-splits')!;
    assert.equal(entry.serializer, undefined);
    assert.deepStrictEqual(entry.values, values);
    assert.notEqual(entry.values[0], values[0]);
  });
});
