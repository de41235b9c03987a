// The binlog client against a private MariaDB: the exact events of inserts, updates, deletes and
// a two-table transaction, GTID starts, the table filter, backpressure, DDL, rotation and the
// refusal of servers whose binlog cannot give row changes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import {
  compareBinlogPositions,
  BinlogConfigError,
  BinlogDecodeError,
  BinlogSchemaError,
  BinlogServerError,
  TableSchemaCache,
  mysql2Runner,
  type BinlogEvent,
  type BinlogPosition,
} from '../../src/connectors/mysql/index.ts';
import { BinlogClient, type BinlogClientOptions } from '../../src/connectors/mysql/binlog-client.ts';
import { detectGtidStrategy, type GtidStrategy } from '../../src/connectors/mysql/gtid-strategy.ts';
import { MariaDbGtidStrategy } from '../../src/connectors/mysql/mariadb-gtid-strategy.ts';

let server: MariaDbServer;
let admin: mysql.Connection;
let strategy: GtidStrategy;
let nextServerId = 100;
const open: Array<{ close(): Promise<void> }> = [];

before(async () => {
  server = await startMariaDb();
  console.log(`private MariaDB started in ${server.startMs} ms on port ${server.port}`);
  admin = await mysql.createConnection({ ...server.connectionOptions(), database: 'test' });
  strategy = await detectGtidStrategy(mysql2Runner(admin));
  await admin.query('CREATE TABLE accounts (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, balance DECIMAL(10,2) NOT NULL)');
  await admin.query('CREATE TABLE audit (id BIGINT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(100))');
  await admin.query('CREATE TABLE other (id INT PRIMARY KEY, v INT)');
});

after(async () => {
  for (const c of open) await c.close().catch(() => {});
  await admin?.end();
  await server?.stop();
});

function here(): Promise<BinlogPosition> {
  return strategy.currentPosition(mysql2Runner(admin));
}

/** A client with its own schema cache and server id; closed in after() if the test does not. */
async function openClient(start: BinlogClientOptions['start'], extra: Partial<BinlogClientOptions> = {}): Promise<BinlogClient> {
  const schemas = new TableSchemaCache(server.connectionOptions());
  open.push(schemas);
  const client = await BinlogClient.open({ ...server.connectionOptions(), serverId: nextServerId++, start, schemas, ...extra });
  open.push(client);
  return client;
}

/** Events until `stop` accepts one (included); fails after the timeout with what came so far. */
async function readUntil(client: BinlogClient, stop: (ev: BinlogEvent) => boolean, timeoutMs = 30_000, reached: () => boolean = () => false): Promise<BinlogEvent[]> {
  const events: BinlogEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ev = client.next();
    if (ev) {
      events.push(ev);
      if (stop(ev)) return events;
      continue;
    }
    if (reached()) return events;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out; events so far: ${JSON.stringify(events, big)}`)), Math.max(0, deadline - Date.now()));
    });
    try {
      await Promise.race([client.available(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const big = (_: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

/**
 * Reads until the commit that ends at `end`, or until the client's position passes `end` (after a
 * FLUSH, MariaDB writes a binlog checkpoint event into the new file when it likes: `end` may lie
 * after that event, which the client skips).
 */
function readTo(client: BinlogClient, end: BinlogPosition): Promise<BinlogEvent[]> {
  return readUntil(client, (ev) => ev.type === 'commit' && ev.file === end.file && ev.nextPos >= end.pos, 30_000, () => compareBinlogPositions(client.position, end) >= 0);
}

function seq(gtid: string | undefined): number {
  assert.match(gtid ?? '', /^0-1-\d+$/);
  return Number(gtid!.split('-')[2]);
}

/** The parts of events that do not depend on offsets and times. */
function shape(events: BinlogEvent[]): unknown[] {
  return events.map((ev) => {
    if (ev.type === 'rows') return { type: 'rows', op: ev.op, table: `${ev.db}.${ev.table}`, rows: ev.rows };
    if (ev.type === 'ddl') return { type: 'ddl', query: ev.query };
    if (ev.type === 'rotate') return { type: 'rotate', file: ev.file, pos: ev.pos };
    return { type: ev.type };
  });
}

test('inserts, updates, deletes and a two-table transaction, exactly, from a file position', async () => {
  const start = await here();
  assert.ok(start.gtid !== undefined);
  await admin.query("INSERT INTO accounts VALUES (1, 'ann', 10.00), (2, 'bob', 20.50), (3, 'cy', 0)");
  await admin.query('UPDATE accounts SET balance = balance + 1 WHERE id IN (1, 2)');
  await admin.query('DELETE FROM accounts WHERE id = 3');
  await admin.beginTransaction();
  await admin.query('UPDATE accounts SET balance = balance - 5 WHERE id = 1');
  await admin.query("INSERT INTO audit (msg) VALUES ('moved 5 from ann'), ('second line')");
  await admin.commit();
  const end = await here();

  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos });
  const events = await readTo(client, end);
  const ann = { id: 1, name: 'ann', balance: '10.00' };
  const bob = { id: 2, name: 'bob', balance: '20.50' };
  const cy = { id: 3, name: 'cy', balance: '0.00' };
  assert.deepStrictEqual(shape(events), [
    { type: 'rows', op: 'c', table: 'test.accounts', rows: [ann, bob, cy].map((after) => ({ before: null, after })) },
    { type: 'commit' },
    {
      type: 'rows',
      op: 'u',
      table: 'test.accounts',
      rows: [
        { before: ann, after: { ...ann, balance: '11.00' } },
        { before: bob, after: { ...bob, balance: '21.50' } },
      ],
    },
    { type: 'commit' },
    { type: 'rows', op: 'd', table: 'test.accounts', rows: [{ before: cy, after: null }] },
    { type: 'commit' },
    { type: 'rows', op: 'u', table: 'test.accounts', rows: [{ before: { ...ann, balance: '11.00' }, after: { ...ann, balance: '6.00' } }] },
    {
      type: 'rows',
      op: 'c',
      table: 'test.audit',
      rows: [
        { before: null, after: { id: 1n, msg: 'moved 5 from ann' } },
        { before: null, after: { id: 2n, msg: 'second line' } },
      ],
    },
    { type: 'commit' },
  ]);

  // Offsets grow; each transaction starts where the previous one committed, and its events
  // share that start and its GTID; GTIDs count up from the start position's.
  let last = start.pos;
  let boundary = start.pos;
  let gtid = seq(start.gtid) + 1;
  for (const ev of events) {
    assert.ok(ev.type === 'rows' || ev.type === 'commit');
    assert.equal(ev.file, start.file);
    assert.equal(seq(ev.gtid), gtid);
    assert.ok(Math.abs(ev.ts - Date.now()) < 120_000);
    if (ev.type === 'rows') {
      assert.ok(ev.pos >= last && ev.nextPos > ev.pos, `offsets grow: ${last} <= ${ev.pos} < ${ev.nextPos}`);
      assert.equal(ev.txnStart, boundary);
    } else {
      assert.ok(ev.nextPos > last);
      boundary = ev.nextPos;
      gtid++;
    }
    last = ev.nextPos;
  }
  assert.equal(gtid, seq(start.gtid) + 5);
  assert.equal(seq(end.gtid), seq(start.gtid) + 4);
  // After the last commit the client is exactly where the server's binlog ended.
  assert.deepStrictEqual(client.position, end);
  await client.close();
});

test('a GTID start gives only the transactions after it', async () => {
  const before = await here();
  await admin.query("INSERT INTO accounts VALUES (10, 'dee', 1)");
  const middle = await here();
  await admin.query("INSERT INTO accounts VALUES (11, 'eve', 2)");
  await admin.query("UPDATE accounts SET name = 'eva' WHERE id = 11");
  const end = await here();

  const client = await openClient({ kind: 'gtid', gtid: middle.gtid! });
  const events = await readTo(client, end);
  // The dump first says which file it is in.
  assert.deepStrictEqual(events[0], { type: 'rotate', file: end.file, pos: 4 });
  assert.deepStrictEqual(shape(events.slice(1)), [
    { type: 'rows', op: 'c', table: 'test.accounts', rows: [{ before: null, after: { id: 11, name: 'eve', balance: '2.00' } }] },
    { type: 'commit' },
    { type: 'rows', op: 'u', table: 'test.accounts', rows: [{ before: { id: 11, name: 'eve', balance: '2.00' }, after: { id: 11, name: 'eva', balance: '2.00' } }] },
    { type: 'commit' },
  ]);
  const commits = events.filter((e) => e.type === 'commit');
  assert.deepStrictEqual(
    commits.map((e) => seq(e.gtid)),
    [seq(middle.gtid) + 1, seq(middle.gtid) + 2],
  );
  assert.deepStrictEqual(client.position, end);

  // An earlier GTID starts earlier: the transaction before `middle` comes first.
  const earlier = await openClient({ kind: 'gtid', gtid: before.gtid! });
  const fromBefore = (await readTo(earlier, end)).filter((e) => e.type === 'rows');
  assert.deepStrictEqual(
    fromBefore.map((e) => e.type === 'rows' && e.rows[0]!.after!.id),
    [10, 11, 11],
  );
});

test('include filters row events by table; every transaction still commits', async () => {
  const start = await here();
  await admin.query('INSERT INTO other VALUES (1, 1)');
  await admin.beginTransaction();
  await admin.query('INSERT INTO other VALUES (2, 2)');
  await admin.query("INSERT INTO accounts VALUES (20, 'fay', 3)");
  await admin.query('UPDATE other SET v = 3 WHERE id = 2');
  await admin.commit();
  const end = await here();

  const schemas = new TableSchemaCache(server.connectionOptions());
  open.push(schemas);
  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos }, { schemas, include: (db, table) => db === 'test' && table === 'accounts' });
  const events = await readTo(client, end);
  assert.deepStrictEqual(shape(events), [
    { type: 'commit' },
    { type: 'rows', op: 'c', table: 'test.accounts', rows: [{ before: null, after: { id: 20, name: 'fay', balance: '3.00' } }] },
    { type: 'commit' },
  ]);
  // The excluded table's events were never decoded: its schema was never asked for.
  assert.equal(schemas.peek('test', 'other'), undefined);
  assert.ok(schemas.peek('test', 'accounts'));
  assert.deepStrictEqual(client.position, end);
});

test('a consumer that does not read holds the server back: the buffer stays bounded, then everything arrives', async () => {
  const rows = 300_000;
  const bound = 5_000;
  await admin.query('CREATE TABLE bulk (id INT PRIMARY KEY, payload VARCHAR(100) NOT NULL)');
  const start = await here();
  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos }, { maxBufferedRows: bound });
  const heapBefore = process.memoryUsage().heapUsed;
  await admin.query(`INSERT INTO bulk SELECT seq, CONCAT('row-', seq, '-', REPEAT('x', 60)) FROM seq_1_to_${rows}`);
  const end = await here();

  // Fills up to the bound and stops there (one event's rows of slack: the bound is checked after a push).
  const slack = 500;
  const deadline = Date.now() + 30_000;
  while (client.buffered.rows < bound) {
    assert.ok(Date.now() < deadline, `buffer never filled: ${JSON.stringify(client.buffered)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Growth cannot be awaited as an event; watch for a while that it does not happen.
  for (let i = 0; i < 10; i++) {
    assert.ok(client.buffered.rows <= bound + slack, `buffered ${client.buffered.rows} rows, bound ${bound}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 150 * 1024 * 1024, 'heap stays small while the consumer does not read');

  let expected = 1;
  let maxBuffered = 0;
  const events = await readUntil(client, (ev) => {
    maxBuffered = Math.max(maxBuffered, client.buffered.rows);
    if (ev.type === 'rows') {
      for (const r of ev.rows) {
        assert.equal(r.after!.id, expected++);
      }
    }
    return ev.type === 'commit';
  }, 120_000);
  assert.equal(expected - 1, rows);
  assert.ok(events.length > 100, `${rows} rows come in many events (${events.length})`);
  assert.ok(maxBuffered <= bound + slack, `buffered at most ${maxBuffered} rows while draining`);
  assert.deepStrictEqual(client.position, end);
  await client.close();
});

test('follows DDL: a DDL event, and rows of the altered table with its new columns', async () => {
  await admin.query('CREATE TABLE evolving (id INT PRIMARY KEY)');
  const start = await here();
  await admin.query('INSERT INTO evolving VALUES (1)');
  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos });
  const first = await readUntil(client, (ev) => ev.type === 'commit');
  assert.deepStrictEqual(shape(first), [{ type: 'rows', op: 'c', table: 'test.evolving', rows: [{ before: null, after: { id: 1 } }] }, { type: 'commit' }]);
  await admin.query("ALTER TABLE evolving ADD COLUMN label VARCHAR(10) NOT NULL DEFAULT 'none'");
  await admin.query("INSERT INTO evolving VALUES (2, 'two')");
  const end = await here();
  const events = await readTo(client, end);
  assert.deepStrictEqual(shape(events), [
    { type: 'ddl', query: "ALTER TABLE evolving ADD COLUMN label VARCHAR(10) NOT NULL DEFAULT 'none'" },
    { type: 'rows', op: 'c', table: 'test.evolving', rows: [{ before: null, after: { id: 2, label: 'two' } }] },
    { type: 'commit' },
  ]);
  assert.equal((events[0] as Extract<BinlogEvent, { type: 'ddl' }>).db, 'test');
});

test('rows written before an ALTER cannot be read with the altered schema: a clear error', async () => {
  await admin.query('CREATE TABLE altered (id INT PRIMARY KEY)');
  const start = await here();
  await admin.query('INSERT INTO altered VALUES (1)');
  await admin.query('ALTER TABLE altered ADD COLUMN extra INT');
  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos });
  await assert.rejects(
    readUntil(client, () => false),
    (e: unknown) =>
      e instanceof BinlogSchemaError &&
      e.db === 'test' &&
      e.table === 'altered' &&
      e.message.includes(`127.0.0.1:${server.port} at ${start.file}:`) &&
      /the binlog has 1 columns, information_schema 2/.test(e.message),
  );
});

test('follows the log into the next file', async () => {
  const start = await here();
  await admin.query('FLUSH BINARY LOGS');
  await admin.query("INSERT INTO accounts VALUES (30, 'gus', 4)");
  const end = await here();
  assert.notEqual(end.file, start.file);
  const client = await openClient({ kind: 'file', file: start.file, pos: start.pos });
  const events = await readTo(client, end);
  assert.deepStrictEqual(shape(events), [
    { type: 'rotate', file: end.file, pos: 4 },
    { type: 'rows', op: 'c', table: 'test.accounts', rows: [{ before: null, after: { id: 30, name: 'gus', balance: '4.00' } }] },
    { type: 'commit' },
  ]);
  const rows = events[1] as Extract<BinlogEvent, { type: 'rows' }>;
  assert.equal(rows.file, end.file);
  assertAtOrPast(client.position, end);
});

/**
 * After a new binlog file begins, MariaDB writes a binlog checkpoint event into it when it likes:
 * the client's position is at `end`, or past it by that event.
 */
function assertAtOrPast(position: BinlogPosition, end: BinlogPosition): void {
  assert.equal(position.file, end.file);
  assert.ok(position.pos >= end.pos, `position ${position.pos} is before ${end.pos}`);
}

test('reads a binlog written without checksums', async () => {
  try {
    // Changing the checksum starts a new binlog file.
    await admin.query("SET GLOBAL binlog_checksum = 'NONE'");
    const start = await here();
    await admin.query("INSERT INTO accounts VALUES (40, 'hal', 5)");
    const end = await here();
    const client = await openClient({ kind: 'file', file: start.file, pos: start.pos });
    assert.deepStrictEqual(shape(await readTo(client, end)), [
      { type: 'rows', op: 'c', table: 'test.accounts', rows: [{ before: null, after: { id: 40, name: 'hal', balance: '5.00' } }] },
      { type: 'commit' },
    ]);
    assertAtOrPast(client.position, end);
  } finally {
    await admin.query("SET GLOBAL binlog_checksum = 'CRC32'");
  }
});

test('refuses a server whose binlog is not ROW with FULL images, naming the setting and the fix', async () => {
  const start = await here();
  const at = { kind: 'file' as const, file: start.file, pos: start.pos };
  try {
    await admin.query("SET GLOBAL binlog_format = 'STATEMENT'");
    await assert.rejects(
      openClient(at),
      (e: unknown) =>
        e instanceof BinlogConfigError &&
        e.setting === 'binlog_format' &&
        e.actual === 'STATEMENT' &&
        e.message.includes(`127.0.0.1:${server.port}`) &&
        e.message.includes("SET GLOBAL binlog_format = 'ROW'"),
    );
  } finally {
    await admin.query("SET GLOBAL binlog_format = 'ROW'");
  }
  try {
    await admin.query("SET GLOBAL binlog_row_image = 'MINIMAL'");
    await assert.rejects(openClient(at), (e: unknown) => e instanceof BinlogConfigError && e.setting === 'binlog_row_image' && e.message.includes("SET GLOBAL binlog_row_image = 'FULL'"));
  } finally {
    await admin.query("SET GLOBAL binlog_row_image = 'FULL'");
  }
  // Back to ROW/FULL, the same start works.
  const client = await openClient(at);
  await client.close();
});

test('changes a session logged as statements or partial images stop the reader with the setting named', async () => {
  const session = await mysql.createConnection({ ...server.connectionOptions(), database: 'test' });
  try {
    const start = await here();
    await session.query("SET SESSION binlog_format = 'STATEMENT'");
    await session.query("UPDATE accounts SET name = 'ann2' WHERE id = 1");
    const statement = await openClient({ kind: 'file', file: start.file, pos: start.pos });
    await assert.rejects(readUntil(statement, () => false), (e: unknown) => e instanceof BinlogDecodeError && /logged as a statement .*binlog_format STATEMENT/.test(e.message));

    const next = await here();
    await session.query("SET SESSION binlog_format = 'ROW', SESSION binlog_row_image = 'MINIMAL'");
    await session.query("UPDATE accounts SET name = 'ann3' WHERE id = 1");
    const partial = await openClient({ kind: 'file', file: next.file, pos: next.pos });
    await assert.rejects(readUntil(partial, () => false), (e: unknown) => e instanceof BinlogDecodeError && /partial row image for test.accounts.*binlog_row_image MINIMAL/.test(e.message));
  } finally {
    await session.end();
  }
});

test('a start in a file the server does not have fails at open with the server error', async () => {
  await assert.rejects(
    openClient({ kind: 'file', file: 'binlog.999999', pos: 4 }),
    (e: unknown) => e instanceof BinlogServerError && e.errno === 1236 && e.message.includes(`127.0.0.1:${server.port}`),
  );
});

test('the MariaDB strategy is detected and reports a position with its GTID', async () => {
  assert.ok(strategy instanceof MariaDbGtidStrategy);
  assert.equal(strategy.flavor, 'mariadb');
  const p = await here();
  const [[row]] = (await admin.query('SELECT @@gtid_binlog_pos AS gtid')) as unknown as [[{ gtid: string }]];
  assert.equal(p.gtid, row.gtid);
  assert.match(p.file, /^binlog\.\d{6}$/);
});
