// The PostgreSQL half of the `cdc` benchmark's baseline: a table read by one plain
// `COPY (SELECT * FROM t [WHERE key range]) TO STDOUT` through the pg client (the driver the CDC
// source uses), its CopyData chunks taken as they come and their rows counted (no decoding: the
// least a reader of the table can do). copyOutsInWorkers runs several at once, each on its own key
// range in its own worker thread: what two readers could gain on this machine at best.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pg from 'pg';

export interface CopyOutTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** `schema.table` */
  readonly table: string;
  /** Only rows with key >= from and < to (either may be null: unbounded). */
  readonly key?: { readonly column: string; readonly from: number | null; readonly to: number | null };
}

interface CopyConnection {
  query(text: string): void;
}

function copySql(t: CopyOutTarget): string {
  const where: string[] = [];
  if (t.key?.from != null) where.push(`${t.key.column} >= ${Math.trunc(t.key.from)}`);
  if (t.key?.to != null) where.push(`${t.key.column} < ${Math.trunc(t.key.to)}`);
  return `COPY (SELECT * FROM ${t.table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}) TO STDOUT`;
}

/** Runs a COPY ... TO STDOUT on `client`; resolves with the rows (newlines) received once the server is ready again. */
export function copyOut(client: pg.Client, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let failed: Error | undefined;
    // pg routes the server's replies to the active "submittable"; CopyOutResponse is ignored by pg itself.
    const submittable = {
      submit: (connection: CopyConnection) => connection.query(text),
      handleCopyData: (msg: { chunk: Buffer }) => {
        const chunk = msg.chunk;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
      },
      handleCommandComplete() {},
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handleError: (e: Error) => (failed = e),
      handleReadyForQuery: () => (failed ? reject(failed) : resolve(rows)),
    };
    client.query(submittable as unknown as pg.QueryConfig);
  });
}

async function connect(t: CopyOutTarget): Promise<pg.Client> {
  const client = new pg.Client({ host: t.host, port: t.port, user: t.user, password: t.password, database: t.database });
  await client.connect();
  return client;
}

/** Reads the table (or its key range) once over a fresh connection; resolves with the rows. */
export async function plainCopyOut(t: CopyOutTarget): Promise<number> {
  const client = await connect(t);
  try {
    return await copyOut(client, copySql(t));
  } finally {
    await client.end();
  }
}

interface WorkerRequest {
  readonly kind: 'pg-copy-out';
  readonly target: CopyOutTarget;
}

/**
 * One COPY per target, each in its own worker thread, started together once every worker is
 * connected (thread start-up and module loading are left out). Resolves with the wall time from
 * the start to the last one's end, and the rows of each.
 */
export async function copyOutsInWorkers(targets: readonly CopyOutTarget[]): Promise<{ ms: number; rows: number[] }> {
  const workers = targets.map((target) => {
    // tsx's hooks are per thread: the worker registers them before it imports this module again.
    const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(code, { eval: true, workerData: { kind: 'pg-copy-out', target } satisfies WorkerRequest });
    const message = (want: string) =>
      new Promise<{ type: string; rows?: number; error?: string }>((resolve, reject) => {
        const onMessage = (m: { type: string; rows?: number; error?: string }) => {
          if (m.type === 'error') reject(new Error(`COPY worker: ${m.error}`));
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
    const start = performance.now();
    for (const w of workers) w.worker.postMessage('go');
    const results = await Promise.all(done);
    return { ms: performance.now() - start, rows: results.map((r) => r.rows!) };
  } finally {
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}

// In a worker started by copyOutsInWorkers: connect, say ready, COPY on 'go', report.
if (!isMainThread && (workerData as WorkerRequest | undefined)?.kind === 'pg-copy-out') {
  const { target } = workerData as WorkerRequest;
  const port = parentPort!;
  connect(target).then(
    (client) => {
      port.once('message', () => {
        copyOut(client, copySql(target)).then(
          async (rows) => {
            port.postMessage({ type: 'done', rows });
            await client.end();
          },
          (e: Error) => port.postMessage({ type: 'error', error: e.message }),
        );
      });
      port.postMessage({ type: 'ready' });
    },
    (e: Error) => port.postMessage({ type: 'error', error: e.message }),
  );
}
