import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildLayeredConfig, type WeirConfig } from '../config/configuration.ts';
import { createLogger, type LogLevel } from '../log/logger.ts';
import { clusterToken, isLoopback } from '../cluster/cluster-token.ts';
import { JobManager } from '../cluster/job-manager.ts';
import { createHighAvailabilityServices } from '../ha/create-high-availability-services.ts';
import { TaskManagerProcess } from '../cluster/task-manager-process.ts';
import { parseDynamicProperties, readConfigFile } from './config-file.ts';
import { UsageError, wholeNumber } from './run-command.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';

export interface ProcessOptions {
  readonly define?: string[];
  readonly config?: string;
  readonly workDir?: string;
  readonly verbose?: boolean;
}

/** host:port as given to --jobmanager / -m (an http:// prefix is accepted). */
export function parseAddress(text: string, flag: string): { host: string; port: number } {
  const t = text.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(t);
  if (!m || Number(m[2]) > 65535) throw new UsageError(`${flag} expects host:port, got '${text}'`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** A process's settings: its config file, then -D and its own flags; returns them as given too (a JobManager's are its jobs' defaults). */
function processConfig(o: ProcessOptions, flags: Record<string, unknown>): { config: WeirConfig; settings: Record<string, unknown> } {
  const file = o.config ? readConfigFile(o.config) : undefined;
  const commandLine = { ...parseDynamicProperties(o.define ?? []), ...flags };
  const config = buildLayeredConfig([
    { source: { kind: 'file', ...(o.config ? { path: resolve(o.config) } : {}) }, settings: file },
    { source: { kind: 'command-line' }, settings: commandLine },
  ]);
  return { config, settings: { ...(file ?? {}), ...commandLine } };
}

function processLog(o: ProcessOptions) {
  const level: LogLevel = o.verbose ? 'debug' : 'info';
  return createLogger({ level });
}

function untilSignal(stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void stop().finally(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** `weir jobmanager`: REST, dashboard, job submission, bundles and TaskManager RPC on one address. */
export async function jobManagerCommand(o: ProcessOptions & { host?: string; port?: string }): Promise<number> {
  process.setSourceMapsEnabled(true);
  const flags: Record<string, unknown> = {};
  if (o.host !== undefined) flags['rest.bind-address'] = o.host;
  if (o.port !== undefined) flags['rest.port'] = wholeNumber(o.port, '--port', 8081);
  const { config, settings } = processConfig(o, flags);
  const host = config['rest.bind-address'];
  const token = clusterToken(config, isLoopback(host) ? undefined : `the JobManager's address ${host}`);
  // Settings only the JobManager process itself uses are not its jobs' defaults.
  for (const k of ['rest.port', 'rest.bind-address']) delete settings[k];
  const log = processLog(o);
  const workDir = o.workDir ? resolve(o.workDir) : mkdtempSync(join(tmpdir(), 'weir-jobmanager-'));
  const jm = new JobManager({ config, settings, token, workDir, log, exactPort: o.port !== undefined || config['rest.port'] !== 8081 });
  await jm.start();
  const address = jm.url.replace(/^http:\/\//, '');
  process.stderr.write(`REST: ${jm.url} (dashboard: ${jm.url}/; TaskManagers: weir taskmanager --jobmanager ${address}; jobs: weir run JOB -m ${address})\n`);
  await untilSignal(() => jm.stop(SHUTDOWN));
  return 0;
}

/** `weir taskmanager --jobmanager H:P`: a TaskManager process with its slots. */
export async function taskManagerCommand(o: ProcessOptions & { jobmanager?: string; slots?: string; host?: string; dataPort?: string; id?: string }): Promise<number> {
  process.setSourceMapsEnabled(true);
  const jobManager = o.jobmanager ? parseAddress(o.jobmanager, '--jobmanager') : undefined;
  const flags: Record<string, unknown> = {};
  if (o.slots !== undefined) flags['taskmanager.numberOfTaskSlots'] = o.slots;
  if (o.host !== undefined) flags['taskmanager.host'] = o.host;
  if (o.dataPort !== undefined) flags['taskmanager.data.port'] = o.dataPort;
  if (o.id !== undefined) flags['taskmanager.resource-id'] = o.id;
  const { config } = processConfig(o, flags);
  // Without --jobmanager, high availability says where the leader is (and follows it to the next one).
  if (!jobManager && config['high-availability.type'] !== 'nats') throw new UsageError('weir taskmanager needs --jobmanager host:port (the address weir jobmanager printed), or high-availability.type nats to find the leader');
  const beyond = jobManager && !isLoopback(jobManager.host) ? `the JobManager's address ${jobManager.host}` : !isLoopback(config['taskmanager.host']) ? `the TaskManager's address ${config['taskmanager.host']}` : undefined;
  const token = clusterToken(config, beyond);
  const log = processLog(o);
  const workDir = o.workDir ? resolve(o.workDir) : mkdtempSync(join(tmpdir(), 'weir-taskmanager-'));
  const ha = jobManager ? undefined : await createHighAvailabilityServices(config, log);
  const tm = new TaskManagerProcess({ config, jobManager: jobManager ?? { leaderRetrieval: ha!.leaderRetrieval('jobmanager') }, token, workDir, log });
  await tm.start();
  process.stderr.write(`TaskManager ${tm.id}: ${config['taskmanager.numberOfTaskSlots']} slot(s), data port ${config['taskmanager.host']}:${tm.dataPort}, JobManager ${tm.jobManagerAddress}\n`);
  const stopped = untilSignal(() => tm.stop());
  try {
    await Promise.race([tm.done, stopped]);
  } finally {
    await ha?.stop(SHUTDOWN);
  }
  return 0;
}
