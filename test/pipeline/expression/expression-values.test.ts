import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpressionEvaluationError } from '../../../src/pipeline/expression/index.ts';
import { evaluate, NULL_ROW, ROW } from './expression-fixture.ts';

/*
 * Expected values of every operator and function, on a row (ROW) and on a row of NULLs (NULL_ROW),
 * by Flink CDC's semantics as docs/pipeline-expressions.md states them. Where the databases agree,
 * expression-databases.test.ts checks the same against PostgreSQL and MariaDB.
 */
const CASES: [string, unknown, unknown][] = [
  // expression, on ROW, on NULL_ROW
  ['id', 7, null],
  ['id + 1', 8, null],
  ['id - 10', -3, null],
  ['id * 3', 21, null],
  ['id / 2', 3, null],
  ['-id / 2', -3, null],
  ['id % 4', 3, null],
  ['2147483647 + id', -2147483642, null], // Java int arithmetic wraps
  ['big + 1', 9007199254740994n, null],
  ['big * 2', 18014398509481986n, null],
  ['price + 1', '11.25', null],
  ['price + qty', '13.2500', null],
  ['price - 0.255', '9.995', null],
  ['price * qty', '30.750000', null],
  ['price * 2', '20.50', null],
  ['price / 4', '2.5625000000000', null],
  ['price / qty', '3.416666666666666', null],
  ['price % 3', '1.25', null],
  ['-price', '-10.25', null],
  ['0.1 + 0.2', '0.3', '0.3'],
  ['price + ratio', 10.75, null],
  ['ratio * 3', 1.5, null],
  ['ABS(-price)', '10.25', null],
  ['ABS(-id)', 7, null],
  ['CEIL(price)', '11', null],
  ['CEILING(-price)', '-10', null],
  ['FLOOR(price)', '10', null],
  ['FLOOR(-price)', '-11', null],
  ['FLOOR(ratio)', 0, null],
  ['ROUND(price, 1)', '10.3', null],
  ['ROUND(-price, 1)', '-10.3', null],
  ['ROUND(price)', '10', null],
  ['ROUND(ratio + 2)', 3, null],
  ['ROUND(id, -1)', 10, null],
  ['CAST(price AS DECIMAL(5,1))', '10.3', null],
  ['CAST(price AS INT)', 10, null],
  ['CAST(price AS BIGINT)', 10n, null],
  ['CAST(price AS DOUBLE)', 10.25, null],
  ['CAST(price AS STRING)', '10.25', null],
  ['CAST(ratio AS STRING)', '0.5', null],
  ['CAST(id AS DOUBLE)', 7, null],
  ['CAST(CAST(id AS DOUBLE) AS VARCHAR)', '7.0', null],
  ['CAST(id AS STRING)', '7', null],
  ['CAST(flag AS STRING)', 'true', null],
  ['CAST(id AS BOOLEAN)', true, null],
  ['CAST(\'42\' AS INT)', 42, 42],
  ['CAST(\'2024-03-01\' AS DATE)', '2024-03-01', '2024-03-01'],
  ['CAST(\'2024-03-01 10:00:00\' AS TIMESTAMP)', '2024-03-01 10:00:00.000', '2024-03-01 10:00:00.000'],
  // comparisons: FALSE, not NULL, when an operand is NULL
  ['id = 7', true, false],
  ['id <> 7', false, false],
  ['id != 8', true, false],
  ['id < 8', true, false],
  ['id <= 7', true, false],
  ['id > 7', false, false],
  ['id >= 7', true, false],
  ['price = 10.250', true, false],
  ['price > 10.2', true, false],
  ['price > id', true, false],
  ['big > 9007199254740992', true, false],
  ['name = \' Abc_x \'', true, false],
  ['name < \'B\'', true, false],
  ['d = \'2024-02-29\'', true, false],
  ['ts > \'2024-02-29 13:45:06\'', true, false],
  ['ts = TIMESTAMP \'2024-02-29 13:45:06.5\'', true, false],
  ['ts < ts2', true, false],
  ['lts = ts', true, false], // the instant 05:45Z is 13:45 in Asia/Shanghai
  ['id BETWEEN 1 AND 7', true, false],
  ['id NOT BETWEEN 1 AND 7', false, true],
  ['price BETWEEN 10 AND 10.25', true, false],
  ['id IN (1, 7, 9)', true, false],
  ['id NOT IN (1, 9)', true, true],
  ['name IN (\'x\', \' Abc_x \')', true, false],
  ['price IN (10.25)', true, false],
  ['name LIKE \' A%\'', true, null],
  ['name LIKE \'_Abc\\_x_\'', true, null],
  ['name LIKE \'%b_\\_%\'', true, null],
  ['name LIKE \'abc%\'', false, null],
  ['name NOT LIKE \'abc%\'', true, null],
  ['name LIKE \'%!_%\' ESCAPE \'!\'', true, null],
  ['id IS NULL', false, true],
  ['id IS NOT NULL', true, false],
  ['flag IS TRUE', true, false],
  ['flag IS NOT TRUE', false, true],
  ['flag IS FALSE', false, false],
  ['flag IS NOT FALSE', true, true],
  // three-valued logic
  ['flag AND id > 1', true, false],
  ['flag AND NULL', null, null],
  ['flag OR NULL', true, null],
  ['NOT flag', false, null],
  ['NOT (id > 100)', true, true],
  ['NULL AND FALSE', false, false],
  ['NULL OR TRUE', true, true],
  ['(id > 1 OR flag) AND NOT (name IS NULL)', true, false],
  // conditionals
  ['CASE WHEN id > 5 THEN \'big\' WHEN id > 1 THEN \'mid\' ELSE \'small\' END', 'big', 'small'],
  ['CASE id WHEN 1 THEN \'one\' WHEN 7 THEN \'seven\' END', 'seven', null],
  ['CASE WHEN flag THEN price ELSE 0 END', '10.25', '0.00'],
  ['COALESCE(name, \'none\')', ' Abc_x ', 'none'],
  ['COALESCE(price, id, 0)', '10.25', '0.00'],
  ['IFNULL(id, -1)', 7, -1],
  ['NULLIF(id, 7)', null, null],
  ['NULLIF(id, 8)', 7, null],
  ['IF(id > 5, \'y\', \'n\')', 'y', 'n'],
  ['IF(flag, price, qty)', '10.2500', null],
  // strings
  ['name || \'!\'', ' Abc_x !', null],
  ['id || \'x\'', '7x', null],
  ['CHAR_LENGTH(name)', 7, null],
  ['UPPER(name)', ' ABC_X ', null],
  ['LOWER(name)', ' abc_x ', null],
  ['TRIM(name)', 'Abc_x', null],
  ['TRIM(BOTH \' x\' FROM name)', 'Abc_', null],
  ['TRIM(LEADING \' \' FROM name)', 'Abc_x ', null],
  ['TRIM(TRAILING \' \' FROM name)', ' Abc_x', null],
  ['LTRIM(name)', 'Abc_x ', null],
  ['RTRIM(name)', ' Abc_x', null],
  ['BTRIM(name, \' x\')', 'Abc_', null],
  ['REGEXP_REPLACE(name, \'[a-c]\', \'#\')', ' A##_x ', null],
  ['REGEXP_REPLACE(name, \'(b)\', \'$1\')', ' A$1c_x ', null], // the replacement is literal, as Flink's quoteReplacement
  ['REGEXP_EXTRACT(name, \'A(b+)c\', 1)', 'b', null],
  ['SUBSTR(name, 2, 3)', 'Abc', null],
  ['SUBSTR(name, 5)', '_x ', null],
  ['SUBSTRING(name, -3, 2)', '_x', null],
  ['SUBSTR(name, 0, 2)', ' A', null],
  ['SUBSTR(name, 20)', '', null],
  ['CONCAT(name, \'-\', id)', ' Abc_x -7', null],
  ['CONCAT_WS(\'/\', \'a\', name, \'b\')', 'a/ Abc_x /b', 'a/b'],
  ['LPAD(\'7\', 3, \'0\')', '007', '007'],
  ['RPAD(\'ab\', 5, \'xy\')', 'abxyx', 'abxyx'],
  ['LPAD(\'abcdef\', 3, \'0\')', 'abc', 'abc'],
  ['REPLACE(name, \'b\', \'BB\')', ' ABBc_x ', null],
  ['REPEAT(\'ab\', 3)', 'ababab', 'ababab'],
  ['LEFT(name, 3)', ' Ab', null],
  ['RIGHT(name, 3)', '_x ', null],
  ['LOCATE(\'c\', name)', 4, null],
  ['INSTR(name, \'c\')', 4, null],
  ['STARTSWITH(name, \' A\')', true, null],
  ['ENDSWITH(name, \'x\')', false, null],
  ['TO_BASE64(\'weir\')', 'd2Vpcg==', 'd2Vpcg=='],
  ['FROM_BASE64(\'d2Vpcg==\')', 'weir', 'weir'],
  // time (the clock is 2024-01-02T03:04:05.678Z; local-time-zone Asia/Shanghai, +08:00)
  ['NOW()', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
  ['CURRENT_TIMESTAMP', '2024-01-02T03:04:05.678Z', '2024-01-02T03:04:05.678Z'],
  ['LOCALTIMESTAMP', '2024-01-02 11:04:05.678', '2024-01-02 11:04:05.678'],
  ['CURRENT_DATE', '2024-01-02', '2024-01-02'],
  ['LOCALTIME', '11:04:05', '11:04:05'],
  ['UNIX_TIMESTAMP()', 1704164645n, 1704164645n],
  ['DATE_FORMAT(ts, \'yyyy-MM-dd HH:mm:ss\')', '2024-02-29 13:45:06', null],
  ['DATE_FORMAT(ts, \'yyyyMMdd\')', '20240229', null],
  ['DATE_FORMAT(ts, \'EEE, d MMM yyyy hh:mm a\')', 'Thu, 29 Feb 2024 01:45 PM', null],
  ['DATE_FORMAT(ts, \'HH:mm:ss.SSS XXX\')', '13:45:06.500 +08:00', null],
  ['DATE_FORMAT(lts, \'yyyy-MM-dd HH:mm\')', '2024-02-29 13:45', null],
  ['DATE_FORMAT(d, \'dd/MM/yy\')', '29/02/24', null],
  ['DATE_FORMAT(d, \'D\')', '60', null],
  ['DATE_FORMAT(tm, \'HH\'\'h\'\'mm\')', '13h45', null],
  ['DATE_FORMAT(ts, \'\'\'at\'\' HH\')', 'at 13', null],
  ['TIMESTAMPDIFF(DAY, ts, ts2)', 365, null],
  ['TIMESTAMPDIFF(MONTH, ts, ts2)', 12, null],
  ['TIMESTAMPDIFF(YEAR, ts, ts2)', 1, null],
  ['TIMESTAMPDIFF(HOUR, ts2, ts)', -8770, null],
  ['TIMESTAMPDIFF(SECOND, d, ts)', 49506, null],
  ['TIMESTAMP_DIFF(MINUTE, ts, ts2)', 526214, null],
  ['TIMESTAMPADD(MONTH, 1, ts)', '2024-03-29 13:45:06.500', null],
  ['TIMESTAMPADD(YEAR, 1, ts)', '2025-02-28 13:45:06.500', null],
  ['TIMESTAMPADD(HOUR, -14, ts)', '2024-02-28 23:45:06.500', null],
  ['TO_DATE(\'2024-03-01\')', '2024-03-01', '2024-03-01'],
  ['TO_DATE(\'01/03/2024\', \'dd/MM/yyyy\')', '2024-03-01', '2024-03-01'],
  ['TO_DATE(ts)', '2024-02-29', null],
  ['TO_DATE(\'2024-02-30\')', null, null],
  ['TO_TIMESTAMP(\'2024-03-01 10:11:12\')', '2024-03-01 10:11:12.000', '2024-03-01 10:11:12.000'],
  ['TO_TIMESTAMP(\'20240301 101112.345\', \'yyyyMMdd HHmmss.SSS\')', '2024-03-01 10:11:12.345', '2024-03-01 10:11:12.345'],
  ['TO_TIMESTAMP_LTZ(\'2024-03-01 08:00:00\')', '2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
  ['FROM_UNIXTIME(44)', '1970-01-01 08:00:44', '1970-01-01 08:00:44'],
  ['FROM_UNIXTIME(id, \'HH:mm:ss\')', '08:00:07', null],
  ['UNIX_TIMESTAMP(\'1970-01-01 08:00:44\')', 44n, 44n],
  ['UNIX_TIMESTAMP(\'1970-01-01 00:00:44 +0000\', \'yyyy-MM-dd HH:mm:ss Z\')', 44n, 44n],
  ['UNIX_TIMESTAMP(\'garbage\')', -9223372036854775808n, -9223372036854775808n],
  ['DATE_ADD(d, 1)', '2024-03-01', null],
  ['YEAR(ts)', 2024n, null],
  ['MONTH(d)', 2n, null],
  ['DAYOFMONTH(ts)', 29n, null],
  ['HOUR(lts)', 13n, null],
  ['EXTRACT(MINUTE FROM ts)', 45n, null],
  ['EXTRACT(DOW FROM d)', 5n, null],
  // metadata
  ['__table_name__', 'orders', 'orders'],
  ['__namespace_name__ || \'.\' || __table_name__', 'shop.orders', 'shop.orders'],
  ['__schema_name__', null, null],
  ['__data_event_type__', '+I', '+I'],
];

describe('pipeline expressions: values', () => {
  for (const [expression, onRow, onNulls] of CASES) {
    it(expression, () => {
      assert.deepEqual(evaluate(expression, ROW), onRow, `${expression} on the row`);
      assert.deepEqual(evaluate(expression, NULL_ROW), onNulls, `${expression} on NULLs`);
    });
  }

  it('UUID() gives a new version 4 UUID per row', () => {
    const a = evaluate('UUID()');
    const b = evaluate('UUID()');
    assert.match(String(a), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a, b);
  });

  it('a division by zero fails the row with a typed error', () => {
    assert.throws(() => evaluate('id / 0'), (e: unknown) => e instanceof ExpressionEvaluationError && e.reason === 'division-by-zero');
    assert.throws(() => evaluate('price / 0'), ExpressionEvaluationError);
  });

  it('a CAST out of range fails the row', () => {
    assert.throws(() => evaluate('CAST(big AS INT)'), (e: unknown) => e instanceof ExpressionEvaluationError && e.reason === 'cast-out-of-range');
    assert.throws(() => evaluate('CAST(price AS DECIMAL(2,1))'), ExpressionEvaluationError);
  });

  it('DECIMAL values never pass through a float: 38 digits stay exact', () => {
    const row = { ...ROW, price: '12345678.91' };
    assert.equal(evaluate('price * price * price * 1000000', row), '1881676376361628489657928971.000000');
    assert.equal(evaluate('CAST(\'12345678901234567890.123456789\' AS DECIMAL(38, 9)) + 0.000000001'), '12345678901234567890.123456790');
  });
}
);
