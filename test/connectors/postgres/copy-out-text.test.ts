import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../../fixtures/postgres-server.ts';
import { copyOutSubmittable } from '../../../src/connectors/postgres/copy-out.ts';
import { copyRowDecoder, copyRowsDecoder, CopyRowShapeError, unescapeCopyField } from '../../../src/connectors/postgres/copy-out-text.ts';
import { PgSqlClient } from '../../../src/connectors/postgres/pg-sql-client.ts';
import { PgTypeCatalog } from '../../../src/connectors/postgres/pg-type-catalog.ts';
import { selectRows } from '../../../src/connectors/postgres/pg-table-rows.ts';

test('COPY text fields: escapes undone, \\N is NULL, an empty field is an empty string', () => {
  assert.equal(unescapeCopyField('a\\tb\\nc\\rd\\\\e\\bf\\fg\\vh'), 'a\tb\nc\rd\\e\bf\fg\vh');
  assert.equal(unescapeCopyField('\\\\N'), '\\N');
  const decode = copyRowDecoder([
    { name: 'id', parse: Number },
    { name: 's', parse: (s) => s },
    { name: 'e', parse: (s) => s },
  ]);
  assert.deepEqual(decode('1\t\\N\t'), { id: 1, s: null, e: '' });
  assert.deepEqual(decode('2\t\\\\N\tx\\ty'), { id: 2, s: '\\N', e: 'x\ty' });
  assert.throws(() => decode('3\tonly two'), (e: unknown) => e instanceof CopyRowShapeError && e.expected === 3 && e.found === 2);
  assert.throws(() => decode('4\ta\tb\tc'), (e: unknown) => e instanceof CopyRowShapeError && e.found === 4);
});

test('rows read by COPY equal the rows pg reads by SELECT, for control characters, backslashes, unicode and quotes in keys', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const sql = await PgSqlClient.connect(server.connectionOptions());
  try {
    await admin.query(`CREATE TABLE t (k text COLLATE "C" PRIMARY KEY, v text, n int)`);
    const values = ['tab\there', 'new\nline', 'cr\rx', 'back\\slash', '\\N', 'bell\u0007', 'bs\b ff\f vt\v', 'ünï ✓ 😀', '', "it's"];
    for (const [i, v] of values.entries()) await admin.query('INSERT INTO t VALUES ($1, $2, $3)', [`${v}|${i}`, v, i]);
    await admin.query(`INSERT INTO t VALUES ('null-row', NULL, NULL)`);
    const expected = (await admin.query<{ k: string; v: string | null; n: number | null }>('SELECT * FROM t ORDER BY k')).rows;
    const all = await selectRows(sql, new PgTypeCatalog(), 'public', 't');
    assert.equal(all.length, values.length + 1);
    assert.deepEqual([...all].sort((a, b) => ((a.k as string) < (b.k as string) ? -1 : 1)), expected);
    // A bound with a quote in it, inlined as a literal.
    const from = await selectRows(sql, new PgTypeCatalog(), 'public', 't', `k >= 'it''s'`);
    assert.deepEqual(from.map((r) => r.k).sort(), expected.filter((r) => r.k >= "it's").map((r) => r.k).sort());
    assert.ok(from.length > 0 && from.length < all.length, 'the bound selected some rows but not all');
  } finally {
    await sql.close();
    await admin.end();
    await server.stop();
  }
});

/** The rows of a CopyTextRows call's text, without their newlines and gaps. */
function rowsOf(text: string, gap: number): string[] {
  return text
    .slice(0, -1)
    .split('\n')
    .map((r) => r.slice(gap));
}

test('COPY output split anywhere across CopyData messages gives the same rows; one ending inside a row is an error', async () => {
  const data = Buffer.from('1\tä\n2\t✓ b\n3\t\\N\n');
  for (let cut = 0; cut <= data.length; cut++) {
    const rows: string[] = [];
    const copy = copyOutSubmittable('COPY t TO STDOUT', (text, gap) => rows.push(...rowsOf(text, gap)));
    const s = copy.submittable as { handleCopyData(m: { chunk: Buffer }): void; handleReadyForQuery(): void };
    s.handleCopyData({ chunk: data.subarray(0, cut) });
    s.handleCopyData({ chunk: data.subarray(cut) });
    s.handleReadyForQuery();
    await copy.finished;
    assert.deepEqual(rows, ['1\tä', '2\t✓ b', '3\t\\N'], `cut at byte ${cut}`);
  }
  const cut = copyOutSubmittable('COPY t TO STDOUT', () => {});
  const s = cut.submittable as { handleCopyData(m: { chunk: Buffer }): void; handleReadyForQuery(): void };
  s.handleCopyData({ chunk: Buffer.from('1\tx\n2\t') });
  s.handleReadyForQuery();
  await assert.rejects(cut.finished, /ended inside a row/);
});

test('many rows in one string: those after a gap of NULs (a message header) and those not, fields sliced and parsed', () => {
  const decode = copyRowsDecoder([
    { name: 'id', parse: Number },
    { name: 's', parse: (s) => s },
  ]);
  const out: Array<Record<string, unknown>> = [];
  decode('\0\0\0\0\x001\ta\\tb\n\0\0\0\0\x002\t\\N\n3\t\n\0\0\0\0\x004\tx\n', 5, out);
  assert.deepEqual(out, [{ id: 1, s: 'a\tb' }, { id: 2, s: null }, { id: 3, s: '' }, { id: 4, s: 'x' }]);
  // Names that are not identifiers, and one a literal key would take for the prototype.
  const odd = copyRowsDecoder(['__proto__', 'a"b', "it's", '1', 'ü ✓'].map((name) => ({ name, parse: (s: string) => s })));
  const images: Array<Record<string, unknown>> = [];
  odd('p\tq\tr\ts\tt\n', 0, images);
  assert.deepEqual(images, [JSON.parse('{"__proto__": "p", "a\\"b": "q", "it\'s": "r", "1": "s", "ü ✓": "t"}')]);
  assert.equal(Object.getPrototypeOf(images[0]), Object.prototype);
  // A single column: rows without any tab.
  const one = copyRowsDecoder([{ name: 's', parse: (s) => s }]);
  const rows: Array<Record<string, unknown>> = [];
  one('a\nb\n\\N\n', 0, rows);
  assert.deepEqual(rows, [{ s: 'a' }, { s: 'b' }, { s: null }]);
  assert.throws(() => one('a\tb\n', 0, []), (e: unknown) => e instanceof CopyRowShapeError && e.found === 2);
});
