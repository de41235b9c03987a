import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareLsn, formatLsn, LsnFormatError, parseLsn, watermarkFromInsertLsn } from '../../../src/connectors/postgres/lsn.ts';

test('LSNs parse from and format to the server notation and compare as 64-bit numbers', () => {
  assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) | 0xb374d848n);
  assert.equal(parseLsn('0/0'), 0n);
  assert.equal(formatLsn(parseLsn('16/b374d848')), '16/B374D848');
  assert.equal(formatLsn(0xffffffffffffffffn), 'FFFFFFFF/FFFFFFFF');
  // '1/0' is after '0/FFFFFFFF' although shorter as text.
  assert.equal(compareLsn(parseLsn('1/0'), parseLsn('0/FFFFFFFF')), 1);
  assert.equal(compareLsn(parseLsn('0/A'), parseLsn('0/A')), 0);
  for (const bad of ['', '16', '16/', 'x/1', '123456789/0', '1/2/3']) assert.throws(() => parseLsn(bad), LsnFormatError, bad);
});

test("a chunk's watermark is one byte before the end of the last record inserted", () => {
  const page = 8192;
  const segment = 16 * 1024 * 1024;
  assert.equal(watermarkFromInsertLsn(0x1000_0128n, page, segment), 0x1000_0127n, 'mid-page: the insert position less one');
  assert.equal(watermarkFromInsertLsn(0x1000_2018n, page, segment), 0x1000_1fffn, 'just past a short page header: the page boundary less one');
  assert.equal(watermarkFromInsertLsn(0x1_0100_0028n, page, segment), 0x1_00ff_ffffn, 'just past a segment\'s long header: the boundary less one');
});
