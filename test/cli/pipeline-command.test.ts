// `weir pipeline --check FILE`: a good file prints its summary and exits 0; a bad one prints every
// problem as file:line:column: message and exits 1; running one with a database sink is refused until
// those sinks are wired in (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weir } from '../fixtures/weir-process.ts';

const EXAMPLE = 'examples/pipelines/mariadb-to-postgres.yaml';

test('weir pipeline --check on the example prints the source, table patterns, routes, transforms and sink, and exits 0', async () => {
  const r = await weir(['pipeline', '--check', EXAMPLE]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^pipeline shop to analytics: parallelism 2, schema\.change\.behavior evolve/m);
  assert.match(r.stdout, /^source: mariadb 127\.0\.0\.1:3307, startup initial$/m);
  assert.match(r.stdout, /^ {2}tables: shop\.\\\.\*$/m);
  assert.match(r.stdout, /^ {2}1\. shop\.orders_\\d\+ -> shop\.orders/m);
  assert.match(r.stdout, /^ {2}2\. shop\.order_items_\\d\+ -> shop\.order_items/m);
  assert.match(r.stdout, /filter: status <> 'test' AND quantity > 0; primary-keys: shard, id$/m);
  assert.match(r.stdout, /^sink: postgres 127\.0\.0\.1:5433 database weir, mode changelog/m);
  assert.match(r.stdout, /^weir configuration: execution\.checkpointing\.interval=10 s$/m);
});

test('weir pipeline --check on a bad file prints each problem as file:line:column and exits 1; a missing file exits 2', async () => {
  const dir = makeTempDir('pipeline-check');
  try {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'source:\n  type: mysql\n  hostnme: h\n  username: u\n  tables: db.(x\nsink:\n  type: kafka\n');
    const r = await weir(['pipeline', '--check', file]);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.deepEqual(lines, [
      `${file}:2:3: source: 'hostname' is required: The database server's host.`,
      `${file}:3:3: source.hostnme: unknown key 'hostnme' in source (mysql) (did you mean hostname?)`,
      `${file}:5:11: source.tables: 'db.(x' is not a regular expression: Invalid regular expression: /^(?:(x)$/i: Unterminated group. A '.' separates database, schema and table; write '\\.' for "any character"`,
      `${file}:7:3: sink: 'properties.bootstrap.servers' is required: The brokers, host:port, comma-separated.`,
      `weir: ${file}: 4 problems`,
    ]);
    const missing = await weir(['pipeline', '--check', join(dir, 'none.yaml')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /none\.yaml: cannot read it/);
  } finally {
    removeDir(dir);
  }
});
