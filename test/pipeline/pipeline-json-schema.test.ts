// The JSON Schema shipped in the package: up to date with the key declarations, accepts what the
// validator accepts (the example, Flink CDC's doc shapes), and rejects the kinds of bad input the
// validator rejects that a schema can see (unknown keys, wrong types, missing keys, bad choices).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { pipelineJsonSchema } from '../../src/pipeline/pipeline-json-schema.ts';
import { checkPipelineText } from '../../src/pipeline/pipeline-validator.ts';

const require = createRequire(import.meta.url);
const Ajv = require('ajv') as new (o?: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };
const SHIPPED = JSON.parse(readFileSync('schemas/pipeline.schema.json', 'utf8')) as object;
const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(SHIPPED);

const BASE = `source:
  type: mysql
  hostname: localhost
  port: 3306
  username: root
  password: 123456
  tables: app_db.\\.*
  server-id: 5400-5404
sink:
  type: kafka
  properties.bootstrap.servers: localhost:9092
  value.format: canal-json
pipeline:
  name: Sync MySQL Database to Kafka
  parallelism: 2
`;

const GOOD: Record<string, string> = {
  example: readFileSync('examples/pipelines/mariadb-to-postgres.yaml', 'utf8'),
  base: BASE,
  'routes and transforms of the docs': `${BASE}route:
  - source-table: app_db.orders
    sink-table: ods_db.ods_orders
  - source-table: db_(\\.*).(\\.*)_tbl
    sink-table: sink_db_$1.sink_table_$2
  - source-table: source_db.\\.*
    sink-table: sink_db.<>
    replace-symbol: <>
    description: route all tables in source_db to sink_db
transform:
  - source-table: app_db.web_order
    projection: id, order_id, UPPER(product_name) as product_name
    filter: id > 10 AND order_id > 100
    primary-keys: order_id, product_name
    partition-keys: product_name
`,
  'postgres to jetstream, weir keys nested and flat': `source:
  type: postgres
  hostname: 127.0.0.1
  username: admin
  password: pass
  tables: adb.public.\\.*
  slot.name: pgtest
  decoding.plugin.name: pgoutput
  scan.startup.mode: latest-offset
sink:
  type: jetstream
  servers: nats://127.0.0.1:4222
  stream: CDC
  include.schema.changes: [create.table, column]
  exclude.schema.changes: drop.column
pipeline:
  schema.change.behavior: try_evolve
  route-mode: FIRST_MATCH
  execution.checkpointing.interval: 1 s
  state:
    backend:
      type: lmdb
`,
};

/** Bad files, each rejected by the validator; `schema` says whether the schema can see it too. */
const BAD: Record<string, { text: string; schema: boolean }> = {
  'unknown key': { text: BASE.replace('  hostname:', '  hostnme:'), schema: true },
  'unknown block': { text: `${BASE}transfrom: []\n`, schema: true },
  'wrong type (a list for the host)': { text: BASE.replace('hostname: localhost', 'hostname: [a, b]'), schema: true },
  'wrong type (a word for the port)': { text: BASE.replace('port: 3306', 'port: abc'), schema: true },
  'missing key': { text: BASE.replace('  username: root\n', ''), schema: true },
  'missing sink': { text: BASE.replace(/sink:\n(  .*\n)+/, ''), schema: true },
  'not a choice': { text: BASE.replace('canal-json', 'avro'), schema: true },
  'unknown source type': { text: BASE.replace('type: mysql', 'type: oracle'), schema: true },
  'a key of another sink type': { text: BASE.replace('  value.format', '  stream: x\n  value.format'), schema: true },
  'port out of range': { text: BASE.replace('port: 3306', 'port: 70000'), schema: true },
  'bad server-id': { text: BASE.replace('5400-5404', '54x'), schema: true },
  'bad schema.change.behavior': { text: `${BASE}  schema.change.behavior: sometimes\n`, schema: true },
  'unknown weir key': { text: `${BASE}  execution.checkpointing.intervall: 1 s\n`, schema: true },
  'bad weir value': { text: `${BASE}  execution.checkpointing.interval: soon\n`, schema: true },
  'transform not a list': { text: `${BASE}transform:\n  source-table: x\n`, schema: true },
  'route without sink-table': { text: `${BASE}route:\n  - source-table: a.b\n`, schema: true },
  'bad regex': { text: BASE.replace('app_db.\\.*', 'app_db.(orders'), schema: false },
  'bad time zone': { text: `${BASE}  local-time-zone: Mars/Olympus\n`, schema: false },
  'transform that never applies': { text: `${BASE}transform:\n  - source-table: app_db.\\.*\n    filter: a > 1\n  - source-table: app_db.t\n    filter: a > 2\n`, schema: false },
};

test('the shipped schemas/pipeline.schema.json is the one the key declarations make (regenerate: node --import tsx scripts/pipeline-schema.ts)', () => {
  assert.deepEqual(SHIPPED, JSON.parse(JSON.stringify(pipelineJsonSchema())));
});

test('the schema accepts what the validator accepts', () => {
  for (const [name, text] of Object.entries(GOOD)) {
    assert.deepEqual(checkPipelineText(`${name}.yaml`, text).problems.map((p) => p.message), [], name);
    assert.ok(validate(parse(text)), `${name}: ${JSON.stringify(validate.errors)}`);
  }
});

test('the schema rejects the bad files the validator rejects, where a schema can see the problem', () => {
  let seen = 0;
  for (const [name, { text, schema }] of Object.entries(BAD)) {
    assert.ok(checkPipelineText(`${name}.yaml`, text).problems.length > 0, `the validator rejects: ${name}`);
    if (schema) {
      assert.equal(validate(parse(text)), false, `the schema rejects: ${name}`);
      seen++;
    }
  }
  assert.equal(seen, 16);
});
