import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileTransform, ExpressionError, type ExpressionErrorCode } from '../../../src/pipeline/expression/index.ts';
import { compile, COLUMNS, META, ROW } from './expression-fixture.ts';

function refused(projection: string, filter: string | undefined, code: ExpressionErrorCode, part: 'projection' | 'filter', line: number, column: number): void {
  assert.throws(
    () => compileTransform({ projection, filter, columns: COLUMNS, dialect: 'mysql', ruleIndex: 2 }, { clock: Date.now, timeZone: 'UTC' }),
    (e: unknown) => {
      assert.ok(e instanceof ExpressionError, String(e));
      assert.equal(e.code, code, e.message);
      assert.equal(e.part, part);
      assert.equal(e.ruleIndex, 2);
      assert.deepEqual([e.position?.line, e.position?.column], [line, column], e.message);
      assert.match(e.message, /^transform rule 3, /);
      return true;
    },
  );
}

describe('pipeline expressions: compiling a transform', () => {
  it('gives the result schema of a projection: * expands, computed columns are typed', () => {
    const t = compile('id, price * 2 AS doubled, UPPER(name) AS uname, __table_name__, ts');
    assert.deepEqual(
      t.columns.map((c) => [c.name, c.typeText, c.origin]),
      [
        ['id', 'INT', 'column'],
        ['doubled', 'DECIMAL(20, 2)', 'computed'],
        ['uname', 'STRING', 'computed'],
        ['__table_name__', 'STRING', 'metadata'],
        ['ts', 'TIMESTAMP(3)', 'column'],
      ],
    );
    assert.equal(t.columns[0]!.sourceType, 'int');
    assert.deepEqual(t.apply(ROW, META), { id: 7, doubled: '20.50', uname: ' ABC_X ', __table_name__: 'orders', ts: ROW.ts });
  });

  it('`*, UPPER(name) AS name`: the computed column takes the source column’s place', () => {
    const t = compile('*, UPPER(name) AS name');
    assert.deepEqual(t.columns.map((c) => c.name), COLUMNS.map((c) => c.name));
    assert.equal(t.columns[2]!.origin, 'computed');
    assert.equal(t.apply(ROW, META)!.name, ' ABC_X ');
  });

  it('filters on source columns and on computed columns by their alias; NULL drops the row', () => {
    const t = compile('id, UPPER(name) AS uname', "uname LIKE '%ABC%' AND id > 5");
    assert.deepEqual(t.apply(ROW, META), { id: 7, uname: ' ABC_X ' });
    assert.equal(t.apply({ ...ROW, id: 5 }, META), null);
    assert.equal(t.apply({ ...ROW, name: null }, META), null);
  });

  it('without a projection, the filter passes the row itself', () => {
    const t = compileTransform({ filter: 'price >= 10', columns: COLUMNS, dialect: 'mysql' }, { clock: Date.now, timeZone: 'UTC' });
    assert.equal(t.apply(ROW, META), ROW);
    assert.equal(t.apply({ ...ROW, price: '9.99' }, META), null);
    assert.deepEqual(t.columns.map((c) => c.name), COLUMNS.map((c) => c.name));
  });

  it('compiles once: the generated code has no AST in it', () => {
    const t = compile('price * 2 AS doubled', 'id > 1');
    assert.match(t.code, /rt\.xmul\(\(t0 === undefined \? \(t0 = rt\.dec\(r\["price"\]\)\) : t0\), k\[0\]\)/);
    assert.doesNotMatch(t.code, /binary_expr|column_ref/);
  });

  it('refuses an unknown column, naming the rule and the position in the expression', () => {
    refused('id,\n  nme AS n2', undefined, 'unknown-column', 'projection', 2, 3);
    refused('id', 'id > 1 AND missing = 2', 'unknown-column', 'filter', 1, 12);
    refused('id, UPPER(nam) AS u', undefined, 'unknown-column', 'projection', 1, 11);
  });

  it('refuses an unknown function, with a suggestion', () => {
    assert.throws(() => compile('UPER(name) AS u'), /unknown function UPER \(did you mean UPPER\?\)/);
    refused('id, FOO(id) AS f', undefined, 'unknown-function', 'projection', 1, 5);
  });

  it('refuses wrong arguments and types at compile time', () => {
    refused('SUBSTR(name) AS s', undefined, 'wrong-arguments', 'projection', 1, 1);
    refused('UPPER(id) AS s', undefined, 'wrong-arguments', 'projection', 1, 1);
    refused('id', "name + 1 > 2", 'type-mismatch', 'filter', 1, 1);
    refused('id', 'id', 'type-mismatch', 'filter', 1, 1);
    refused("DATE_FORMAT(ts, 'yyyy-qq') AS f", undefined, 'wrong-arguments', 'projection', 1, 1);
    refused("TIMESTAMPDIFF(FORTNIGHT, ts, ts2) AS f", undefined, 'wrong-arguments', 'projection', 1, 1);
  });

  it('refuses syntax errors with their position', () => {
    refused('id, price *', undefined, 'syntax', 'projection', 1, 12);
    refused('id', 'id >', 'syntax', 'filter', 1, 5);
  });

  it('refuses a computed column without a name, a duplicate, and a metadata column as alias', () => {
    refused('id, id + 1', undefined, 'syntax', 'projection', 1, 5);
    refused('id + 1 AS a, id + 2 AS a', undefined, 'duplicate-column', 'projection', 1, 14);
    refused('UPPER(name) AS __table_name__', undefined, 'reserved-name', 'projection', 1, 1);
  });

  it('reads the PostgreSQL types of the CDC schema', () => {
    const t = compileTransform(
      { projection: 'a * 2 AS a2, b || \'!\' AS b2, c AS c2, d', columns: [{ name: 'a', type: 'numeric(8,3)' }, { name: 'b', type: 'text' }, { name: 'c', type: 'timestamptz' }, { name: 'd', type: 'int8' }], dialect: 'postgres' },
      { clock: Date.now, timeZone: 'UTC' },
    );
    assert.deepEqual(t.columns.map((c) => c.typeText), ['DECIMAL(18, 3)', 'STRING', 'TIMESTAMP_LTZ(6)', 'BIGINT']);
    assert.deepEqual(t.apply({ a: '1.500', b: 'x', c: '2024-01-01T00:00:00Z', d: 5n }, META), { a2: '3.000', b2: 'x!', c2: '2024-01-01T00:00:00Z', d: 5n });
  });

  it('LOCALTIMESTAMP and LOCALTIME are read without parentheses, positions after them still map back', () => {
    refused('LOCALTIMESTAMP AS l, nope AS n', undefined, 'unknown-column', 'projection', 1, 22);
  });
});
