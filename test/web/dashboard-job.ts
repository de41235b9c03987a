// The job the dashboard test watches (and `node --import tsx test/web/dashboard-job.ts` serves, to
// look at the dashboard by hand): an endless keyed sum whose sink can be made to hang on demand, so
// that backpressure builds up and checkpoints expire while the page is open.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createJobMaster, createLogger, defineJob, type JobMaster, type JobResult, type Sink, type SinkWriter } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import type { Logger } from '../../src/log/logger.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

/** A sink that takes everything, except while held: then its writers are not ready (like a hung external system). */
export class HoldableSink<T> implements Sink<T> {
  #until = 0;
  readonly #waiting = new Set<() => void>();

  /** Holds every writer for `ms` from now. */
  hold(ms: number): void {
    this.#until = Date.now() + ms;
  }

  /** Lets every writer go at once. */
  release(): void {
    this.#until = 0;
    for (const r of [...this.#waiting]) r();
  }

  createWriter(): SinkWriter<T> {
    let blocked: Promise<void> | undefined;
    return {
      write: () => {},
      ready: () => {
        if (blocked) return blocked;
        const wait = this.#until - Date.now();
        if (wait <= 0) return undefined;
        blocked = new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.#waiting.delete(done);
            blocked = undefined;
            resolve();
          };
          const timer = setTimeout(done, wait);
          this.#waiting.add(done);
        });
        return blocked;
      },
      abort: () => this.release(),
      close: () => this.release(),
    };
  }
}

/** The REST API's token settings (none by default). */
export interface RestAccess {
  readonly token?: string;
  readonly tokenRequiredForReads?: boolean;
}

/** The job's REST server on loopback; stopping it twice is harmless (tests stop it in finally and in after). */
export async function startOnceStoppableRest(master: JobMaster, port: number | undefined, log: Logger, access: RestAccess = {}): Promise<RestServer> {
  const server = await startRestServer({ master, host: '127.0.0.1', port: port ?? 0, token: access.token ?? null, tokenRequiredForReads: access.tokenRequiredForReads ?? null, log });
  let stopped = false;
  return {
    url: server.url,
    port: server.port,
    app: server.app,
    stop: async (reason, graceMs) => {
      if (stopped) return;
      stopped = true;
      await server.stop(reason, graceMs);
    },
  };
}

export interface DashboardJob {
  readonly master: JobMaster;
  readonly rest: RestServer;
  readonly sink: HoldableSink<unknown>;
  readonly result: Promise<JobResult>;
  readonly savepointDir: string;
  /** Cancels the job if it still runs, closes the REST server, removes the temporary files. */
  stop(): Promise<void>;
}

/** The job's own name (env.setJobName): the dashboard shows it, not its first source's name. */
export const JOB_NAME = 'Events per key';

/**
 * Starts the job (Source p2 -HASH-> Sum p2 -REBALANCE-> Sink p1, checkpoints every 400 ms with a
 * 600 ms timeout and a thousand tolerable failures) with its REST API on a free loopback port.
 */
export async function startDashboardJob(options: { port?: number; ratePerSecond?: number } & RestAccess = {}): Promise<DashboardJob> {
  const root = makeTempDir('dashboard');
  const savepointDir = join(root, 'savepoints');
  const sink = new HoldableSink<unknown>();
  const job = defineJob((env) => {
    env.setParallelism(2);
    env.setJobName(JOB_NAME);
    env.enableCheckpointing({ interval: 400, timeout: '600 ms', tolerableFailures: 1000, mode: 'exactly-once' });
    env
      .fromSource(DataGen.of((i) => ({ key: `k${i % 500}`, n: 1 }), { ratePerSecond: options.ratePerSecond ?? 4000 }), { name: 'Source: events', uid: 'source' })
      .keyBy((r) => r.key)
      .sum('n', { name: 'Sum per key', uid: 'sum' })
      .rebalance()
      .sinkTo(sink, { name: 'Sink: holdable', uid: 'sink', parallelism: 1 });
  });
  const log = createLogger({ level: 'error' });
  const master = await createJobMaster({
    job,
    config: {
      'execution.checkpointing.dir': join(root, 'checkpoints'),
      'execution.checkpointing.savepoint-dir': savepointDir,
    },
    log,
  });
  const result = master.run();
  const rest = await startOnceStoppableRest(master, options.port, log, options);
  return {
    master,
    rest,
    sink,
    result,
    savepointDir,
    stop: async () => {
      sink.release();
      await master.cancel();
      await rest.stop(SHUTDOWN, 0).catch(() => {});
      removeDir(root);
    },
  };
}

// Run directly: serve the dashboard until Ctrl-C (holding the sink now and then, for a lively page).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT ?? 8081);
  const j = await startDashboardJob({ port });
  process.stderr.write(`dashboard: ${j.rest.url}/   (the sink hangs for 2 s every 15 s; Ctrl-C stops)\n`);
  const timer = setInterval(() => j.sink.hold(2000), 15_000);
  process.once('SIGINT', () => {
    clearInterval(timer);
    void j.stop().then(() => process.exit(0));
  });
  await j.result;
  clearInterval(timer);
  await j.rest.stop(SHUTDOWN, 1000);
}
