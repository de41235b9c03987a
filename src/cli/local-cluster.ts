import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleJob } from '../cluster/job-bundle.ts';
import { JobManager } from '../cluster/job-manager.ts';
import { buildLayeredConfig } from '../config/configuration.ts';
import { formatDuration } from '../config/duration.ts';
import { createLogger } from '../log/logger.ts';
import { parseDynamicProperties, readConfigFile } from './config-file.ts';
import { commandLineConfig, UsageError, wholeNumber, type RunOptions } from './run-command.ts';
import { ProgressLine } from './progress-line.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';

const WEIR_BIN = fileURLToPath(new URL('../../bin/weir.mjs', import.meta.url));

/**
 * `weir run JOB --task-managers N --processes`: a cluster in one command, on loopback: a
 * JobManager in this process, N TaskManager processes (children, with as many slots each as the
 * job needs spread over them), the job submitted to it as `weir run -m` would, followed to its
 * end; then the TaskManagers are stopped.
 */
export async function localClusterCommand(job: string, jobArgs: readonly string[], o: RunOptions): Promise<number> {
  process.setSourceMapsEnabled(true);
  const n = wholeNumber(o.taskManagers, '--task-managers', 0);
  if (n < 1) throw new UsageError('--processes needs --task-managers N with N of at least 1: the TaskManager processes to start');
  const log = createLogger({ level: o.verbose ? 'debug' : process.stderr.isTTY ? 'warn' : 'info' });
  const defines = parseDynamicProperties(o.define ?? []);
  const config = buildLayeredConfig([
    { source: { kind: 'file', ...(o.config ? { path: resolve(o.config) } : {}) }, settings: o.config ? readConfigFile(o.config) : undefined },
    { source: { kind: 'command-line' }, settings: { ...defines, 'rest.bind-address': '127.0.0.1' } },
  ]);
  const workDir = mkdtempSync(join(tmpdir(), 'weir-local-cluster-'));
  const jm = new JobManager({ config, settings: {}, token: null, workDir: join(workDir, 'jobmanager'), log });
  await jm.start();
  const address = jm.url.replace(/^http:\/\//, '');
  const children: ChildProcess[] = [];
  try {
    const bundle = await bundleJob(job);
    const stored = jm.bundles.put(bundle.code, bundle.name);
    const layer = commandLineConfig(o);
    const parallelism = layer['parallelism.default'];
    delete layer['parallelism.default'];
    const master = await jm.submit(stored.hash, {
      programArgsList: jobArgs,
      ...(parallelism !== undefined ? { parallelism: Number(parallelism) } : {}),
      ...(o.fromSavepoint ? { savepointPath: resolve(o.fromSavepoint) } : {}),
      allowNonRestoredState: o.allowNonRestoredState ?? false,
      flinkConfiguration: layer,
      ...(o.config ? { configFile: readConfigFile(o.config), configFilePath: resolve(o.config) } : {}),
    });
    process.stdout.write(`Job ID: ${master.jobId}\n`);
    process.stderr.write(`REST: ${jm.url} (dashboard: ${jm.url}/)\n`);
    const slots = Math.ceil(Math.max(...master.graph.vertices.map((v) => v.parallelism)) / n);
    const passOn = Object.entries(defines).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
    for (let i = 0; i < n; i++) {
      const child = spawn(process.execPath, [WEIR_BIN, 'taskmanager', '--jobmanager', address, '--slots', String(slots), '--id', `local-${i + 1}`, '--work-dir', join(workDir, `taskmanager-${i + 1}`), ...passOn], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
    }
    const onSigint = () => void master.cancel();
    process.once('SIGINT', onSigint);
    // The same live line as `weir run`'s (the JobManager here has the TaskManagers' reports).
    const progress = new ProgressLine(master);
    progress.start();
    const result = await master.run().finally(() => progress.stop());
    process.off('SIGINT', onSigint);
    const restarts = result.restarts > 0 ? `, ${result.restarts} restart${result.restarts === 1 ? '' : 's'}` : '';
    process.stderr.write(`Job ${result.jobId} ${result.status} in ${formatDuration(result.durationMs)}${restarts}\n`);
    if (result.error) process.stderr.write(`Cause: ${result.error.message}\n`);
    return result.status === 'FINISHED' ? 0 : 1;
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((done) => {
            if (c.exitCode !== null || c.signalCode !== null) return done();
            c.once('exit', () => done());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
    await jm.stop(SHUTDOWN);
    rmSync(workDir, { recursive: true, force: true });
  }
}
