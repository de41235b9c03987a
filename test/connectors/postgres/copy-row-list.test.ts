// CopyRowList: a COPY's rows kept as text and decoded when asked for, in any order, equal to the
// rows decoded on arrival.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyRowsDecoder } from '../../../src/connectors/postgres/copy-out-text.ts';
import { CopyRowList } from '../../../src/connectors/postgres/copy-row-list.ts';

const COLUMNS = [
  { name: 'id', parse: Number },
  { name: 's', parse: (s: string) => s },
  { name: 'b', parse: BigInt },
];

test('rows asked for in order, backwards and at random equal the rows decoded at once; out of range is undefined', () => {
  const gap = '\0\0\0\0\0';
  const texts: Array<[string, number]> = [];
  for (let t = 0; t < 30; t++) {
    let text = '';
    for (let r = 0; r < 50; r++) {
      const id = t * 50 + r;
      const s = id % 7 === 0 ? '\\N' : id % 5 === 0 ? `x\\\\y\\t${id}` : `v${id}`;
      text += `${t % 2 === 0 ? gap : ''}${id}\t${s}\t${BigInt(id) * 1_000_000_007n}\n`;
    }
    texts.push([text, t % 2 === 0 ? 5 : 0]);
  }
  const list = new CopyRowList(COLUMNS);
  const expected: Array<Record<string, unknown>> = [];
  const decode = copyRowsDecoder(COLUMNS);
  for (const [text, gap] of texts) {
    list.add(text, gap);
    decode(text, gap, expected);
  }
  assert.equal(list.length, 1500);
  assert.deepEqual(expected[5], { id: 5, s: 'x\\y\t5', b: 5_000_000_035n });
  assert.deepEqual(Array.from({ length: list.length }, (_, i) => list.at(i)), expected);
  assert.deepEqual(Array.from({ length: list.length }, (_, i) => list.at(list.length - 1 - i)).reverse(), expected);
  for (let k = 0; k < 500; k++) {
    const i: number = (k * 7919) % list.length;
    assert.deepEqual(list.at(i), expected[i], `row ${i}`);
  }
  assert.equal(list.at(-1), undefined);
  assert.equal(list.at(1500), undefined);
});
