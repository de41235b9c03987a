// MySQL's binary JSON, which no server here can produce: documents laid out by hand from the
// format's documentation (json_binary.h), printed the way MySQL prints a JSON column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binaryJsonToText } from '../../../src/connectors/mysql/mysql-binary-json.ts';

test('a small object with an inlined int16 and a string', () => {
  // {"a": 1, "bc": "xy"}: count 2, size, key entries (offset, length), value entries (type, offset/inline), keys, values.
  const doc = Buffer.from([
    0x00, // small object
    0x02, 0x00, // count
    0x17, 0x00, // size: 4 + 2*4 + 2*3 + 3 (keys) + 3 (string) = 23
    0x12, 0x00, 0x01, 0x00, // key "a" at 18
    0x13, 0x00, 0x02, 0x00, // key "bc" at 19
    0x05, 0x01, 0x00, // int16 1, inlined
    0x0c, 0x15, 0x00, // string at 21
    0x61, 0x62, 0x63, // "a", "bc"
    0x02, 0x78, 0x79, // length 2, "xy"
  ]);
  assert.equal(binaryJsonToText(doc), '{"a": 1, "bc": "xy"}');
});

test('an array of literals, a double, a uint64 and a nested array', () => {
  const double = Buffer.alloc(8);
  double.writeDoubleLE(2);
  const big = Buffer.alloc(8);
  big.writeBigUInt64LE(18446744073709551615n);
  // Header 4 + 6 value entries * 3 = 22; double at 22, uint64 at 30, nested array at 38.
  const nested = Buffer.from([0x01, 0x00, 0x07, 0x00, 0x04, 0x00, 0x00]); // [null]
  const doc = Buffer.concat([
    Buffer.from([0x02, 0x06, 0x00, 22 + 8 + 8 + nested.length, 0x00]),
    Buffer.from([0x04, 0x01, 0x00, 0x04, 0x02, 0x00, 0x04, 0x00, 0x00]), // true, false, null
    Buffer.from([0x0b, 22, 0x00, 0x0a, 30, 0x00, 0x02, 38, 0x00]),
    double,
    big,
    nested,
  ]);
  assert.equal(binaryJsonToText(doc), '[true, false, null, 2.0, 18446744073709551615, [null]]');
});

test('strings are escaped as MySQL prints them; empty documents are null', () => {
  const text = 'q"\\\n\u0001é';
  const bytes = Buffer.from(text, 'utf8');
  assert.equal(binaryJsonToText(Buffer.concat([Buffer.from([0x0c, bytes.length]), bytes])), '"q\\"\\\\\\n\\u0001é"');
  assert.equal(binaryJsonToText(Buffer.alloc(0)), 'null');
});
