// The `cdc` benchmark's baseline: a table read by one streaming SELECT through mysql2 (the driver
// the CDC source uses), decoded by the source's snapshotTypeCast on a session set up as the
// source's, rows counted by hand. plainReadsInWorkers runs several such reads at once, each on
// its own key range in its own worker thread: what parallel readers could gain on this machine at
// best, with nothing of the engine in the way.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import mysql from 'mysql2';
import { snapshotTypeCast } from '../../src/connectors/mysql/column-codec.ts';

export interface PlainReadTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** `db.table` */
  readonly table: string;
  /** Only rows with key >= from and < to (either may be null: unbounded). */
  readonly key?: { readonly column: string; readonly from: number | null; readonly to: number | null };
}

function openConnection(t: PlainReadTarget): mysql.Connection {
  // The same connection settings as the source's (src/connectors/mysql/sql-client.ts).
  return mysql.createConnection({ host: t.host, port: t.port, user: t.user, password: t.password, typeCast: snapshotTypeCast, supportBigNumbers: true, dateStrings: true, timezone: 'Z' });
}

async function prepare(conn: mysql.Connection): Promise<void> {
  await new Promise<void>((resolve, reject) => conn.query("SET time_zone = '+00:00'", (e) => (e ? reject(e) : resolve())));
}

function streamRows(conn: mysql.Connection, t: PlainReadTarget): Promise<number> {
  const where: string[] = [];
  const values: number[] = [];
  if (t.key?.from != null) {
    where.push(`${t.key.column} >= ?`);
    values.push(t.key.from);
  }
  if (t.key?.to != null) {
    where.push(`${t.key.column} < ?`);
    values.push(t.key.to);
  }
  const sql = `SELECT * FROM ${t.table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  let rows = 0;
  return new Promise<number>((resolve, reject) => {
    conn
      .query(sql, values)
      .on('result', () => {
        rows++;
      })
      .on('error', reject)
      .on('end', () => resolve(rows));
  });
}

function end(conn: mysql.Connection): Promise<void> {
  return new Promise<void>((resolve) => conn.end(() => resolve()));
}

/** Reads the table (or its key range) once; resolves with the number of rows. */
export async function plainRead(t: PlainReadTarget): Promise<number> {
  const conn = openConnection(t);
  try {
    await prepare(conn);
    return await streamRows(conn, t);
  } finally {
    await end(conn);
  }
}

interface WorkerRequest {
  readonly kind: 'cdc-plain-read';
  readonly target: PlainReadTarget;
}

/**
 * One read per target, each in its own worker thread, started together once every worker is
 * connected (thread start-up and module loading are left out). Resolves with the wall time from
 * the start to the last read's end, and the rows of each. `measure` is called at the start and
 * the function it returns at the end (e.g. a CPU meter).
 */
export async function plainReadsInWorkers(targets: readonly PlainReadTarget[], measure: () => () => void = () => () => {}): Promise<{ ms: number; rows: number[] }> {
  const workers = targets.map((target) => {
    // tsx's hooks are per thread: the worker registers them before it imports this module again.
    const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(code, { eval: true, workerData: { kind: 'cdc-plain-read', target } satisfies WorkerRequest });
    const message = (want: string) =>
      new Promise<{ type: string; rows?: number; error?: string }>((resolve, reject) => {
        const onMessage = (m: { type: string; rows?: number; error?: string }) => {
          if (m.type === 'error') reject(new Error(`plain read worker: ${m.error}`));
          else if (m.type === want) {
            worker.off('message', onMessage);
            resolve(m);
          }
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
      });
    return { worker, ready: message('ready'), message };
  });
  try {
    await Promise.all(workers.map((w) => w.ready));
    const done = workers.map((w) => w.message('done'));
    const stop = measure();
    const start = performance.now();
    for (const w of workers) w.worker.postMessage('go');
    const results = await Promise.all(done);
    const ms = performance.now() - start;
    stop();
    return { ms, rows: results.map((r) => r.rows!) };
  } finally {
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}

// In a worker started by plainReadsInWorkers: connect, say ready, read on 'go', report.
if (!isMainThread && (workerData as WorkerRequest | undefined)?.kind === 'cdc-plain-read') {
  const { target } = workerData as WorkerRequest;
  const port = parentPort!;
  const conn = openConnection(target);
  prepare(conn).then(
    () => {
      port.once('message', () => {
        streamRows(conn, target).then(
          async (rows) => {
            port.postMessage({ type: 'done', rows });
            await end(conn);
          },
          (e: Error) => port.postMessage({ type: 'error', error: e.message }),
        );
      });
      port.postMessage({ type: 'ready' });
    },
    (e: Error) => port.postMessage({ type: 'error', error: e.message }),
  );
}
