// Pipeline files: the example is whole; every kind of problem is reported with file, line, column
// and key path, all problems of a file at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkPipelineText, loadPipelineFile } from '../../src/pipeline/pipeline-validator.ts';
import { PipelineCheckError, UnknownKeyProblem, type PipelineProblem } from '../../src/pipeline/pipeline-problem.ts';
import { TableRouter } from '../../src/pipeline/table-router.ts';
import { placeWithin } from '../../src/pipeline/yaml-source.ts';
import { firstMatchingTransform } from '../../src/pipeline/transform-rules.ts';

const EXAMPLE = 'examples/pipelines/mariadb-to-postgres.yaml';

const MINIMAL = `source:
  type: mysql
  hostname: localhost
  username: root
  password: 123456
  tables: app_db.\\.*
sink:
  type: print
`;

function problems(text: string): PipelineProblem[] {
  const r = checkPipelineText('p.yaml', text);
  assert.equal(r.definition, undefined, 'a file with problems has no definition');
  assert.ok(r.problems.length > 0);
  return [...r.problems];
}

const brief = (ps: PipelineProblem[]) => ps.map((p) => `${p.line}:${p.column} ${p.code} ${p.path}`);

test('the example pipeline is whole: source, two merging routes, transforms with places, evolve, weir keys', () => {
  const d = loadPipelineFile(EXAMPLE);
  assert.equal(d.source.type, 'mariadb');
  assert.equal(d.source.options['server-id'], '5400-5403');
  assert.ok(d.source.tables.matches('shop.orders_1') && d.source.tables.matches('shop.customers'));
  assert.equal(d.sink.type, 'postgres');
  assert.equal(d.pipeline.schemaChangeBehavior, 'evolve');
  assert.deepEqual(d.pipeline.config, { 'execution.checkpointing.interval': '10 s', 'pipeline.name': 'shop to analytics', 'parallelism.default': 2 });
  const router = new TableRouter(d.routes, d.pipeline.routeMode);
  assert.deepEqual(['shop.orders_1', 'shop.orders_2', 'shop.order_items_9', 'shop.customers'].map((t) => router.route(t)[0]), ['shop.orders', 'shop.orders', 'shop.order_items', 'shop.customers']);
  const t = d.transforms[firstMatchingTransform(d.transforms, 'shop.orders_7')!]!;
  assert.deepEqual(t.primaryKeys, ['shard', 'id']);
  const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
  const p = t.projection!;
  assert.equal(lines[p.line - 1]!.slice(p.column - 1), p.raw, 'the projection is kept with its line and column');
  assert.equal(p.text, '*, price * quantity AS total, __table_name__ AS shard', "Flink CDC's \\* is *");
  const at = placeWithin(p, p.text.indexOf('quantity'));
  assert.equal(lines[at.line - 1]!.slice(at.column - 1, at.column - 1 + 'quantity'.length), 'quantity', 'a position inside maps to the file');
  assert.equal(t.filter!.text, "status <> 'test' AND quantity > 0");
});

test('an unknown key names the nearest known key, with its line and column', () => {
  const ps = problems(MINIMAL.replace('  hostname:', '  hostnme:'));
  assert.deepEqual(brief(ps), ['2:3 missing-key source', '3:3 unknown-key source.hostnme']);
  const unknown = ps.find((p) => p instanceof UnknownKeyProblem) as UnknownKeyProblem;
  assert.equal(unknown.suggestion, 'hostname');
  assert.match(unknown.message, /^p\.yaml:3:3: source\.hostnme: unknown key 'hostnme' in source \(mysql\) \(did you mean hostname\?\)$/);
});

test('weir configuration keys in the pipeline block are checked by their declarations; a typo names the key', () => {
  const ps = problems(`${MINIMAL}pipeline:\n  execution.checkpointing.interval: soon\n  execution.checkpointing.intervall: 1 s\n  parallelism: 0\n`);
  assert.deepEqual(brief(ps), ['10:37 bad-value pipeline.execution.checkpointing.interval', '11:3 unknown-key pipeline.execution.checkpointing.intervall', '12:16 bad-value pipeline.parallelism']);
  assert.match(ps[0]!.message, /expected a duration/);
  assert.match(ps[1]!.message, /did you mean execution\.checkpointing\.interval\?/);
  const nested = checkPipelineText('p.yaml', `${MINIMAL}pipeline:\n  execution:\n    checkpointing:\n      interval: 5 s\n`);
  assert.deepEqual(nested.problems, []);
  assert.deepEqual(nested.definition!.pipeline.config, { 'execution.checkpointing.interval': '5 s' });
  assert.deepEqual(brief(problems(`${MINIMAL}pipeline:\n  name: a\n  pipeline.name: b\n`)), ['11:3 conflicting-keys pipeline.pipeline.name']);
  const tooMany = problems(`${MINIMAL}pipeline:\n  parallelism: 100000\n`);
  assert.deepEqual(brief(tooMany), ['10:16 bad-value pipeline.parallelism']);
  assert.match(tooMany[0]!.message, /must be at most 32768, got 100000/);
});

test('wrong types, missing keys, bad values and bad regexes: all of them, in file order', () => {
  const text = `source:
  type: mysql
  hostname: [a, b]
  username: root
  port: abc
  tables: app_db.(orders
sink:
  type: kafka
  value.format: avro
route:
  - source-table: app_db.orders
transform:
  source-table: x
pipeline:
  schema.change.behavior: sometimes
  local-time-zone: Mars/Olympus
`;
  assert.deepEqual(brief(problems(text)), [
    '3:13 wrong-type source.hostname',
    '5:9 wrong-type source.port',
    '6:11 bad-regex source.tables',
    '8:3 missing-key sink',
    '9:17 bad-value sink.value.format',
    '11:5 missing-key route[0]',
    '13:3 wrong-type transform',
    '15:27 bad-value pipeline.schema.change.behavior',
    '16:20 bad-value pipeline.local-time-zone',
  ]);
});

test('empty route, transform and pipeline blocks are none; an empty file or a list is not a pipeline', () => {
  const r = checkPipelineText('p.yaml', `${MINIMAL}route:\ntransform:\npipeline:\n`);
  assert.deepEqual(r.problems, []);
  assert.deepEqual([r.definition!.routes.length, r.definition!.transforms.length, r.definition!.pipeline.schemaChangeBehavior], [0, 0, 'lenient']);
  assert.deepEqual(brief(problems('')), ['1:1 wrong-type ']);
  assert.deepEqual(brief(problems('- a\n')), ['1:1 wrong-type ']);
});

test('YAML syntax errors and keys written twice are reported with their places', () => {
  assert.deepEqual(brief(problems(`${MINIMAL}sink:\n  type: print\n`)).map((s) => s.split(' ')[1]), ['yaml-syntax']);
  const [p] = problems('source:\n  type: [mysql\n');
  assert.equal(p!.code, 'yaml-syntax');
  assert.equal(p!.line, 3);
});

test('unknown blocks, and an unknown source type, say what is known', () => {
  const ps = problems(MINIMAL.replace('type: mysql', 'type: oracle') + 'transfrom: []\n');
  assert.deepEqual(brief(ps), ['2:9 bad-value source.type', '9:1 unknown-key transfrom']);
  assert.match(ps[0]!.message, /expected one of mysql, mariadb, postgres, got 'oracle'/);
  assert.match(ps[1]!.message, /did you mean transform\?/);
});

test('a transform after a rule that takes all of its tables never applies (first matching rule wins)', () => {
  const text = `${MINIMAL}transform:
  - source-table: app_db.\\.*
    projection: \\*, 'fallback' AS f
  - source-table: app_db.web_order
    filter: id > 1
  - source-table: app_db.orders_\\d+
    filter: id > 2
`;
  const ps = problems(text);
  assert.deepEqual(brief(ps), ['12:5 transform-never-applies transform[1]', '14:5 transform-never-applies transform[2]']);
  assert.match(ps[0]!.message, /transform rule 2 never applies: rule 1 matches app_db\.web_order first/);
  const narrowFirst = checkPipelineText('p.yaml', `${MINIMAL}transform:
  - source-table: app_db.web_order
    filter: id > 1
  - source-table: app_db.\\.*
    projection: \\*, 'fallback' AS f
`);
  assert.deepEqual(narrowFirst.problems, [], "Flink CDC's classification mapping example is fine");
});

test('tables routed to one sink table with different primary-keys make its key ambiguous', () => {
  const text = `${MINIMAL}route:
  - source-table: app_db.orders_\\d+
    sink-table: app_db.orders
transform:
  - source-table: app_db.orders_1
    primary-keys: id
  - source-table: app_db.orders_2
    primary-keys: order_id, id
`;
  const ps = problems(text);
  assert.deepEqual(brief(ps), ['15:5 ambiguous-primary-key transform[1].primary-keys']);
  assert.match(ps[0]!.message, /sink table app_db\.orders would have two primary keys: app_db\.orders_1 gets \(id\) from transform rule 1; app_db\.orders_2 gets \(order_id, id\) from transform rule 2/);
  const same = checkPipelineText('p.yaml', text.replace('primary-keys: order_id, id', 'primary-keys: ID'));
  assert.deepEqual(same.problems, [], 'the same key (case aside) is not ambiguous');
  const unrouted = checkPipelineText('p.yaml', text.replace(/route:\n.*\n.*\n/, ''));
  assert.deepEqual(unrouted.problems, [], 'tables that go to tables of their own may have keys of their own');
});

test('PostgreSQL source: database.schema.table names the database; schema.table needs the database key', () => {
  const pg = (tables: string, more = '') => `source:\n  type: postgres\n  hostname: h\n  username: u\n  tables: ${tables}\n  slot.name: pipeline_slot\n${more}sink:\n  type: print\n`;
  const d = checkPipelineText('p.yaml', pg('shop.public.orders_\\d+, shop.sales.\\.*')).definition!;
  assert.equal(d.source.options['database'], 'shop');
  assert.ok(d.source.tables.matches('public.orders_3') && d.source.tables.matches('sales.x') && !d.source.tables.matches('shop.public.orders_3'));
  assert.deepEqual(brief(problems(pg('public.orders'))), ['2:3 missing-key source']);
  assert.equal(checkPipelineText('p.yaml', pg('public.orders', '  database: shop\n')).problems.length, 0);
  assert.deepEqual(brief(problems(pg('a.public.x, b.public.y'))), ['5:11 bad-value source.tables']);
  assert.deepEqual(brief(problems(pg('shop.public.x').replace('pipeline_slot', 'Bad-Slot'))), ['6:14 bad-value source.slot.name']);
});

test("MySQL: startup modes that need a position have one; tables are database.table", () => {
  assert.deepEqual(brief(problems(MINIMAL.replace('  tables:', '  scan.startup.mode: timestamp\n  tables:'))), ['6:22 missing-key source.scan.startup.mode']);
  assert.deepEqual(brief(problems(MINIMAL.replace('app_db.\\.*', 'orders'))), ['6:11 bad-value source.tables']);
  const ok = checkPipelineText('p.yaml', MINIMAL.replace('  tables:', '  scan.startup.mode: specific-offset\n  scan.startup.specific-offset.gtid-set: 0-1-100\n  tables:'));
  assert.deepEqual(ok.problems, []);
});

test('schema changes a sink applies: lenient leaves out truncate and drop table; include adds create.table; exclude wins; words name several', () => {
  const sinkWith = (more: string, behavior = 'lenient') => checkPipelineText('p.yaml', `${MINIMAL}${more}pipeline:\n  schema.change.behavior: ${behavior}\n`).definition!.sink.schemaChanges;
  assert.deepEqual(sinkWith(''), ['add.column', 'alter.column.type', 'create.table', 'drop.column', 'rename.column']);
  assert.deepEqual(sinkWith('', 'evolve').length, 7);
  // Flink CDC's SchemaDerivator: ignore still lets create.table through (rows need their table).
  assert.deepEqual(sinkWith('', 'ignore'), ['create.table']);
  assert.deepEqual(sinkWith('  include.schema.changes: [create.table, column]\n  exclude.schema.changes: [drop.column]\n', 'evolve'), ['add.column', 'alter.column.type', 'create.table', 'rename.column']);
  assert.deepEqual(sinkWith('  include.schema.changes: add.column\n', 'evolve'), ['add.column', 'create.table']);
  assert.deepEqual(sinkWith('  exclude.schema.changes: drop\n', 'lenient'), ['add.column', 'alter.column.type', 'create.table', 'rename.column', 'truncate.table']);
  assert.deepEqual(brief(problems(`${MINIMAL}  exclude.schema.changes: drop.everything\n`)), ['9:27 bad-value sink.exclude.schema.changes']);
});

test('loadPipelineFile throws PipelineCheckError with every problem', () => {
  assert.throws(() => loadPipelineFile('test/pipeline/no-such-file.yaml'), /ENOENT/);
  const text = MINIMAL.replace('hostname', 'host').replace('type: print', 'type: printer');
  const r = checkPipelineText('x.yaml', text);
  const e = new PipelineCheckError('x.yaml', r.problems);
  assert.equal(e.problems.length, 3);
  assert.match(e.message, /^x\.yaml: 3 problems:\nx\.yaml:2:3: source: 'hostname' is required/);
});
