// Scenario `sinks`: the exactly-once database sinks against plain bulk loads of the same rows
// through the same client library, on private servers (test/fixtures/postgres-server.ts,
// mariadb-server.ts).
//
//   pg-copy      COPY t FROM STDIN (text format, 64 KiB CopyData chunks) in one transaction
//   pg-sink      PostgresSink's writer (insert mode: batches of 1000 rows encoded from the records
//                and streamed into a COPY kept open across batches, a new one every 4 MiB)
//                + PREPARE TRANSACTION + its committer's COMMIT PREPARED
//   my-insert    multi-row INSERT … VALUES ? of 1000 rows each through mysql2, in one transaction
//   my-sink      MySqlSink's writer (insert mode, the same batches in an XA transaction) + XA
//                END/PREPARE + its committer's XA COMMIT
//
// Rows: (id int primary key, name text/varchar(40), amount float8/double, at timestamptz/datetime).
// pg-copy's rows are encoded to COPY text before its clock starts; pg-sink encodes them on the clock.
// rows/s = N / wall time from the first row until the commit returned (connections are opened
// before the clock starts; the table is truncated before each run). The sinks are driven directly
// (writer, pre-commit, commit), without a job around them: the figure is the sink's, not the
// engine's. Variants alternate within a run; ratios are per run, the median is reported.
// Goal: each sink >= 0.7x its baseline.
import pg from 'pg';
import mysql from 'mysql2/promise';
import { PostgresSink } from '../../src/connectors/postgres/index.ts';
import { MySqlSink } from '../../src/connectors/mysql/index.ts';
import { startPostgres } from '../../test/fixtures/postgres-server.ts';
import { startMariaDb } from '../../test/fixtures/mariadb-server.ts';
import { fmtNumber, fmtRatio, timed, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import { runVariants, variantTable } from '../side-by-side.ts';
import { driveSink } from '../connector-drivers.ts';
import { copyFrom } from './pg-copy.ts';

type Row = {
  id: number;
  name: string;
  amount: number;
  at: Date;
};

function rows(n: number): Row[] {
  const base = Date.UTC(2026, 0, 1);
  return Array.from({ length: n }, (_, i) => ({ id: i, name: `customer-${i % 1000}`, amount: (i % 10_000) / 100, at: new Date(base + i * 1000) }));
}

function copyChunks(data: readonly Row[]): Buffer[] {
  const chunks: Buffer[] = [];
  let text = '';
  for (const r of data) {
    text += `${r.id}\t${r.name}\t${r.amount}\t${r.at.toISOString()}\n`;
    if (text.length > 65_536) {
      chunks.push(Buffer.from(text));
      text = '';
    }
  }
  if (text) chunks.push(Buffer.from(text));
  return chunks;
}


export const sinks: Scenario = {
  name: 'sinks',
  description: 'PostgresSink vs a plain COPY, MySqlSink vs a plain multi-row INSERT (rows/s, goal >= 0.7x)',
  defaultRuns: 3,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const n = options.records ?? 200_000;
    const data = rows(n);
    const chunks = copyChunks(data);
    const postgres = await startPostgres();
    const maria = await startMariaDb();
    const pgClient = new pg.Client(postgres.connectionOptions());
    await pgClient.connect();
    const my = await mysql.createConnection(maria.connectionOptions());
    try {
      await pgClient.query('CREATE TABLE bench (id int PRIMARY KEY, name text, amount float8, at timestamptz)');
      await my.query('CREATE DATABASE bench');
      await my.query('CREATE TABLE bench.bench (id int PRIMARY KEY, name varchar(40), amount double, at datetime(3))');
      const pgSink = new PostgresSink({ connection: postgres.connectionOptions(), table: 'bench', batchSize: 1000 });
      const mySink = new MySqlSink({ connection: { ...maria.connectionOptions(), database: 'bench' }, table: 'bench', batchSize: 1000 });
      const variants: Record<string, () => Promise<number>> = {
        'pg-copy': async () => {
          await pgClient.query('TRUNCATE bench');
          return (
            await timed(async () => {
              await pgClient.query('BEGIN');
              await copyFrom(pgClient, 'COPY bench (id, name, amount, at) FROM STDIN', chunks);
              await pgClient.query('COMMIT');
            })
          ).ms;
        },
        'pg-sink': async () => {
          await pgClient.query('TRUNCATE bench');
          return driveSink(pgSink, data, 'sink');
        },
        'my-insert': async () => {
          await my.query('TRUNCATE bench.bench');
          return (
            await timed(async () => {
              await my.query('START TRANSACTION');
              for (let i = 0; i < data.length; i += 1000) await my.query('INSERT INTO bench.bench (id, name, amount, at) VALUES ?', [data.slice(i, i + 1000).map((r) => [r.id, r.name, r.amount, r.at])]);
              await my.query('COMMIT');
            })
          ).ms;
        },
        'my-sink': async () => {
          await my.query('TRUNCATE bench.bench');
          return driveSink(mySink, data, 'sink');
        },
      };
      const m = await runVariants(options, n, 'rows/s', variants, { pg: ['pg-copy', 'pg-sink'], my: ['my-insert', 'my-sink'] });
      const pgRatio = m.ratios.pg!;
      const myRatio = m.ratios.my!;
      return {
        table: variantTable(m, 'rows/s'),
        notes: [
          `${fmtNumber(n)} rows, ${options.runs} runs per variant; sinks driven directly (writer, pre-commit, commit).`,
          `PostgresSink / COPY: ${fmtRatio(pgRatio.median)} (goal >= 0.70x) ${pgRatio.median >= 0.7 ? 'met' : 'NOT met'}`,
          `MySqlSink / multi-row INSERT: ${fmtRatio(myRatio.median)} (goal >= 0.70x) ${myRatio.median >= 0.7 ? 'met' : 'NOT met'}`,
        ],
        data: { rows: n, samples: m.samples, ratios: { postgres: pgRatio, mysql: myRatio } },
      };
    } finally {
      await pgClient.end().catch(() => {});
      await my.end().catch(() => {});
      await postgres.stop();
      await maria.stop();
    }
  },
};
