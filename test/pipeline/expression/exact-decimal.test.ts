import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExactDecimal } from '../../../src/pipeline/expression/exact-decimal.ts';

const d = (s: string): ExactDecimal => ExactDecimal.parse(s)!;

describe('ExactDecimal', () => {
  it('parses and prints plain, signed, long and exponent text', () => {
    for (const [text, printed] of [
      ['-12.50', '-12.50'],
      ['+3', '3'],
      ['.5', '0.5'],
      ['-0.00', '0.00'],
      ['12345678901234567890.123456789', '12345678901234567890.123456789'],
      ['1.5e3', '1500'],
      ['1.5e-3', '0.0015'],
    ]) assert.equal(d(text!).toString(), printed, text);
    assert.equal(ExactDecimal.parse('1.2.3'), null);
    assert.equal(ExactDecimal.parse('abc'), null);
    assert.equal(ExactDecimal.parse(''), null);
  });

  it('computes exactly on both sides of 2^53 (the double fast path and BigInt)', () => {
    const big = d('9007199254740991'); // 2^53 - 1
    assert.equal(big.add(d('1')).toString(), '9007199254740992');
    assert.equal(big.add(d('2.5')).toString(), '9007199254740993.5');
    assert.equal(big.multiply(d('3')).toString(), '27021597764222973');
    assert.equal(big.negate().subtract(d('10')).toString(), '-9007199254741001');
    assert.equal(d('0.1').add(d('0.2')).toString(), '0.3');
    assert.equal(d('123456789.123').multiply(d('987654321.987')).toString(), '121932631355968601.347401');
    assert.equal(big.compare(big.add(d('0.000001'))), -1);
    assert.equal(d('1.10').compare(d('1.1')), 0);
    assert.equal(d('-0.05').multiply(d('0')).toString(), '0.00');
  });

  it('rounds half up, down, floor and ceiling, on small and big values', () => {
    for (const [v, s, mode, want] of [
      ['2.345', 2, 'HALF_UP', '2.35'],
      ['-2.345', 2, 'HALF_UP', '-2.35'],
      ['2.344', 2, 'HALF_UP', '2.34'],
      ['2.349', 2, 'DOWN', '2.34'],
      ['-2.349', 2, 'DOWN', '-2.34'],
      ['-2.341', 2, 'FLOOR', '-2.35'],
      ['2.341', 2, 'CEILING', '2.35'],
      ['15', -1, 'HALF_UP', '20'],
      ['123456789012345678.5', 0, 'HALF_UP', '123456789012345679'],
      ['-123456789012345678.5', 0, 'FLOOR', '-123456789012345679'],
    ] as const) assert.equal(d(v).withScale(s, mode).toString(), want, `${v} ${mode} ${s}`);
  });

  it('divides at a scale, truncating, and refuses zero', () => {
    assert.equal(d('10.00').divide(d('3'), 6, 'DOWN')!.toString(), '3.333333');
    assert.equal(d('-10').divide(d('4'), 1, 'DOWN')!.toString(), '-2.5');
    assert.equal(d('1').divide(d('0'), 2, 'DOWN'), null);
    assert.equal(d('7.5').remainder(d('-2'))!.toString(), '1.5');
    assert.equal(d('-7.5').remainder(d('2'))!.toString(), '-1.5');
  });
});
