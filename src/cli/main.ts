import { Command, Option } from 'commander';
import { ConfigError } from '../config/config-error.ts';
import { ConfigFileError } from '../config/config-file-error.ts';
import { runCommand, UsageError } from './run-command.ts';
import { verifyCommand } from './verify-command.ts';
import { demoCommand } from './demo-command.ts';
import { cancelCommand, checkpointCommand, checkpointsCommand, disposeCommand, listCommand, savepointCommand, stopCommand } from './job-commands.ts';
import { inspectCommand } from './inspect-command.ts';
import { initCommand } from './init-command.ts';
import { configRows } from '../config/config-table.ts';
import { buildConfig } from '../config/configuration.ts';
import { parseDynamicProperties, readConfigFile } from './config-file.ts';
import { withReadableSnapshot } from '../checkpoint/readable-snapshot.ts';
import { PACKAGE_VERSION } from './package-version.ts';
import { jobManagerCommand, taskManagerCommand } from './cluster-commands.ts';
import { submitCommand } from './submit-command.ts';
import { localClusterCommand } from './local-cluster.ts';

// `weir inspect ... | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const program = new Command('weir')
  .description('weir: stateful stream processing for TypeScript with exactly-once checkpoints')
  .version(PACKAGE_VERSION, '-V, --version', 'the weir-stream version')
  .enablePositionalOptions()
  .showHelpAfterError();

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * For commands that hand arguments on to the job: an option weir does not know is most often one
 * meant for the job, written before the `--` that separates them.
 */
const jobArgumentsAfterDashes = (command: string) => ({
  outputError: (text: string, write: (s: string) => void) =>
    write(
      text.replace(
        /^error: unknown option '([^']+)'.*$/m,
        (line, flag: string) => `${line}: not an option of weir ${command}; the job's own arguments go after --, as in: weir ${command} <job> [options] -- ${flag} ...`,
      ),
    ),
});

program
  .command('run')
  .description('run a job module in the foreground (TypeScript or JavaScript; no build step)')
  .argument('<job>', 'path of the job module (its default export is made with defineJob)')
  .argument('[jobArgs...]', 'the job\'s own arguments, after --')
  .configureOutput(jobArgumentsAfterDashes('run'))
  .option('-p, --parallelism <n>', 'default parallelism (parallelism.default)')
  .option('--name <name>', "the job's name, over the job's own env.setJobName (pipeline.name)")
  .option('--task-managers <n>', 'worker-thread TaskManagers (or processes, with --processes); 0 runs every subtask in this thread', '0')
  .option('--processes', 'a local cluster: a JobManager here and --task-managers TaskManager processes on loopback')
  .option('-m, --jobmanager <host:port>', 'submit to the cluster of this JobManager (weir jobmanager) instead of running here')
  .option('-d, --detached', 'with -m: print the job id and return; the job goes on')
  .option('--token <token>', "with -m: the cluster's token (security.cluster.token), sent with every call")
  .option('--checkpoint-dir <dir>', 'checkpoint storage (execution.checkpointing.dir)')
  .addOption(new Option('--mode <mode>', 'consistency level').choices(['exactly-once', 'at-least-once', 'at-most-once']))
  .option('--unaligned', 'unaligned checkpoints (execution.checkpointing.unaligned.enabled)')
  .option('--aligned-timeout <ms>', 'start aligned, switch to unaligned after this long (execution.checkpointing.aligned-checkpoint-timeout)')
  .option('-D, --define <key=value>', 'set any configuration key (repeatable)', collect)
  .option('--config <file>', 'YAML or JSON configuration file')
  .option('-s, --from-savepoint <path>', 'start from a savepoint or a retained checkpoint (chk-N directory)')
  .option('-n, --allow-non-restored-state', 'skip state of operators that are no longer in the job')
  .addOption(new Option('--claim-mode <mode>', "with -s: whether the job owns the retained checkpoint it starts from and may delete it (execution.state-recovery.claim-mode)").choices(['NO_CLAIM', 'CLAIM']))
  .option('--allow-duplicating-fallback', 'a restart may fall back past a damaged checkpoint whose output a two-phase-commit sink committed, committing it twice (execution.checkpointing.fallback-past-committed: allow)')
  .option('--inject-failures <n>', 'make N task failures at seeded random points (testing exactly-once)')
  .option('--seed <n>', 'seed for --inject-failures', '1')
  .option('--inject-failures-in <name>', 'only into operators whose vertex name contains this text (e.g. a keyed operator; a CDC source\'s idle reader never reaches its planned failure)')
  .option('--inject-failures-after <min-max>', 'each failure strikes after a random number of its subtask\'s records in this range (default 100-50000)')
  .option('--verbose', 'debug logging')
  .action(async (job: string, jobArgs: string[], options) => {
    if (options.jobmanager) process.exitCode = await submitCommand(job, jobArgs, options);
    else if (options.processes) process.exitCode = await localClusterCommand(job, jobArgs, options);
    else process.exitCode = await runCommand(job, jobArgs, options);
    exitSoonAfterTheJob();
  });

/** A long-running process of the cluster: its own options, then the configuration ones every process takes. */
function clusterProcess<O>(name: string, description: string, own: ReadonlyArray<readonly [string, string]>, defineText: string, start: (options: O) => Promise<number>): void {
  const command = program.command(name).description(description);
  for (const [flag, text] of own) command.option(flag, text);
  command
    .option('-D, --define <key=value>', defineText, collect)
    .option('--config <file>', 'YAML or JSON configuration file')
    .option('--verbose', 'debug logging')
    .action(async (options: O) => {
      try {
        process.exitCode = await start(options);
      } catch (e) {
        // Reported below (the exit code set); then the process ends, whatever a failed start left open (a NATS client's socket to a server that never answered).
        setImmediate(() => process.exit());
        throw e;
      }
      process.exit(process.exitCode);
    });
}

clusterProcess(
  'jobmanager',
  'start a JobManager: REST, dashboard, job submission and TaskManager RPC on one address',
  [
    ['--host <host>', 'the address to listen on (rest.bind-address); beyond loopback security.cluster.token is required'],
    ['--port <port>', 'the port (rest.port)'],
    ['--work-dir <dir>', 'where uploaded job bundles are kept (default: a new temporary directory)'],
  ],
  'set any configuration key (repeatable); job keys are the defaults of every job',
  jobManagerCommand,
);

clusterProcess(
  'taskmanager',
  'start a TaskManager process that registers with a JobManager and offers its slots',
  [
    ['--jobmanager <host:port>', 'the JobManager (the address weir jobmanager printed; with high-availability.type nats and none given, the leader NATS names)'],
    ['--slots <n>', 'slots, each a worker thread (taskmanager.numberOfTaskSlots)'],
    ['--host <host>', 'the address of its data port (taskmanager.host)'],
    ['--data-port <port>', 'its data port (taskmanager.data.port; 0: any free one)'],
    ['--id <id>', 'its resource id in the cluster (taskmanager.resource-id)'],
    ['--work-dir <dir>', 'where fetched job bundles are cached (default: a new temporary directory)'],
  ],
  'set any configuration key (repeatable)',
  taskManagerCommand,
);

program
  .command('demo')
  .description('the seed\'s story on its word count: checkpoints, an injected failure, restore, replay, verified output')
  .action(async () => {
    process.exitCode = await demoCommand();
  });

program
  .command('verify')
  .description('run a job without and with injected failures and compare its final state and committed output')
  .argument('<job>', 'path of the job module')
  .argument('[jobArgs...]', 'the job\'s own arguments, after --')
  .configureOutput(jobArgumentsAfterDashes('verify'))
  .option('-p, --parallelism <n>', 'default parallelism')
  .option('--task-managers <n>', 'worker-thread TaskManagers', '0')
  .option('--failures <n>', 'injected failures in the second run', '3')
  .option('--seed <n>', 'seed for the failure points', '1')
  .option('--output-arg <name>', 'the job argument naming its output directory (each run gets its own)', 'output')
  .option('-D, --define <key=value>', 'set any configuration key (repeatable)', collect)
  .option('--config <file>', 'YAML or JSON configuration file')
  .option('--keep', 'keep both runs\' checkpoints and output')
  .action(async (job: string, jobArgs: string[], options) => {
    process.exitCode = await verifyCommand(job, jobArgs, options);
  });

const remote = (cmd: Command) =>
  cmd
    .option('-m, --jobmanager <host:port>', "the job's REST address (default: found from the job id, else 127.0.0.1:8081)")
    .option('--token <token>', 'the JobManager\'s rest.token (sent with every call, reads too)')
    .option('--json', 'JSON output for scripts');

remote(program.command('list').description('list running jobs')).action(async (o) => {
  process.exitCode = await listCommand(o);
});

remote(
  program
    .command('savepoint')
    .description('trigger a savepoint of a running job, or remove one with --dispose')
    .argument('[job-id]', 'the job')
    .argument('[dir]', 'target directory (default: execution.checkpointing.savepoint-dir)')
    .option('--dispose <path>', 'remove a savepoint'),
).action(async (jobId: string | undefined, dir: string | undefined, o) => {
  if (o.dispose) process.exitCode = await disposeCommand(o.dispose, o);
  else if (!jobId) throw new UsageError('weir savepoint needs a job id (or --dispose PATH)');
  else process.exitCode = await savepointCommand(jobId, dir, o);
});

remote(
  program
    .command('checkpoint')
    .description('trigger a checkpoint of a running job now (besides the periodic ones) and wait for it')
    .argument('<job-id>', 'the job'),
).action(async (jobId: string, o) => {
  process.exitCode = await checkpointCommand(jobId, o);
});

remote(
  program
    .command('stop')
    .description('stop a job with a savepoint: sources stop, a final savepoint is taken, sinks commit, the job finishes')
    .argument('<job-id>', 'the job')
    .option('--savepoint <dir>', 'savepoint directory')
    .option('--drain', 'end the input first, so every operator flushes (for a permanent stop)'),
).action(async (jobId: string, o) => {
  process.exitCode = await stopCommand(jobId, o);
});

remote(program.command('cancel').description('cancel a job (no savepoint)').argument('<job-id>', 'the job')).action(async (jobId: string, o) => {
  process.exitCode = await cancelCommand(jobId, o);
});

program
  .command('pipeline')
  .description('run a Flink CDC 3 style YAML pipeline (source, sink, route, transform, pipeline) as a job, as weir run runs one; --check validates it')
  .argument('<file>', 'the pipeline YAML file')
  .option('--check', 'validate the file and print a summary, without running it (exit 1 with file:line:column errors)')
  .option('-p, --parallelism <n>', 'default parallelism (parallelism.default), over the file\'s pipeline.parallelism')
  .option('--name <name>', "the job's name, over the file's pipeline.name (pipeline.name)")
  .option('--task-managers <n>', 'worker-thread TaskManagers (or processes, with --processes); 0 runs every subtask in this thread', '0')
  .option('--processes', 'a local cluster: a JobManager here and --task-managers TaskManager processes on loopback')
  .option('-m, --jobmanager <host:port>', 'submit to the cluster of this JobManager (weir jobmanager) instead of running here')
  .option('-d, --detached', 'with -m: print the job id and return; the pipeline goes on')
  .option('--token <token>', "with -m: the cluster's token (security.cluster.token), sent with every call")
  .option('--checkpoint-dir <dir>', 'checkpoint storage (execution.checkpointing.dir)')
  .option('-D, --define <key=value>', 'set any configuration key (repeatable), over the file\'s pipeline block', collect)
  .option('--config <file>', 'YAML or JSON configuration file')
  .option('-s, --from-savepoint <path>', 'start from a savepoint or a retained checkpoint (chk-N directory)')
  .option('-n, --allow-non-restored-state', 'skip state of operators that are no longer in the job')
  .addOption(new Option('--claim-mode <mode>', 'with -s: whether the job owns the retained checkpoint it starts from (execution.state-recovery.claim-mode)').choices(['NO_CLAIM', 'CLAIM']))
  .option('--inject-failures <n>', 'make N task failures at seeded random points (testing exactly-once)')
  .option('--seed <n>', 'seed for --inject-failures', '1')
  .option('--inject-failures-in <name>', 'only into operators whose vertex name contains this text')
  .option('--inject-failures-after <min-max>', 'each failure strikes after a random number of its subtask\'s records in this range (default 100-50000)')
  .option('--verbose', 'debug logging')
  .action(async (file: string, o) => {
    // Loaded only for `weir pipeline`: the pipeline brings a SQL parser, YAML and every sink, which
    // every other command (a weir run in a 64 MB heap among them) would carry for nothing.
    const { pipelineCommand } = await import('./pipeline-command.ts');
    process.exitCode = await pipelineCommand(file, o);
    if (!o.check) exitSoonAfterTheJob();
  });

remote(
  program
    .command('checkpoints')
    .description('recent checkpoints of a running job: durations, sizes, and why failed ones failed (with a hint)')
    .argument('<job-id>', 'the job')
    .option('--limit <n>', 'how many', '20'),
).action(async (jobId: string, o) => {
  process.exitCode = await checkpointsCommand(jobId, o);
});

program
  .command('config')
  .description('list every configuration key with its default and meaning')
  .option('--json', 'as JSON')
  .action((o: { json?: boolean }) => {
    const rows = configRows();
    process.stdout.write(o.json ? JSON.stringify(rows) + '\n' : rows.map((r) => `${r.key} = ${r.default}\n    ${r.doc}`).join('\n') + '\n');
  });

program
  .command('init')
  .description('write a small weir project to start from: a job, TypeScript settings, scripts and a test')
  .argument('<dir>', 'the project directory (made if missing; must be empty)')
  .option('--force', 'write into a directory that is not empty')
  .action((dir: string, o: { force?: boolean }) => {
    process.exitCode = initCommand(dir, o);
  });

program
  .command('inspect')
  .description('read a savepoint or checkpoint: operators, states, key groups, sizes; or dump one state')
  .argument('<path>', 'savepoint or checkpoint directory (or its _metadata), or a nats-obj://<bucket>/<path> location')
  .option('--uid <uid>', 'an operator uid')
  .option('--state <name>', 'dump this state of --uid as JSON lines (key, value)')
  .option('--json', 'the listing as JSON')
  .option('-D, --define <key=value>', 'configuration for reaching the storage, e.g. -D high-availability.nats.servers=nats://host:4222 (repeatable)', collect)
  .option('--config <file>', 'YAML or JSON configuration file')
  .action(async (path: string, o) => {
    const config = buildConfig(o.config ? readConfigFile(o.config) : undefined, parseDynamicProperties(o.define ?? []));
    process.exitCode = await withReadableSnapshot(path, config, (local) => inspectCommand(local, o));
  });

/**
 * The job has ended and everything weir started is closed; whatever user code left behind (an
 * open socket, a timer, a stuck cancellation) must not keep the command from exiting.
 */
function exitSoonAfterTheJob(graceMs = 5000): void {
  setTimeout(() => {
    const active = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap');
    process.stderr.write(`weir: the job ended ${graceMs / 1000} s ago but something it started is still active${active.length > 0 ? ` (${active.join(', ')})` : ''}; exiting\n`);
    process.exit(process.exitCode ?? 0);
  }, graceMs).unref();
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  const err = e as Error;
  const known =
    err instanceof UsageError ||
    err instanceof ConfigError ||
    err instanceof ConfigFileError ||
    ['JobModuleError', 'JobBuildError', 'GraphValidationError', 'RestoreError', 'CheckpointCorruptedError', 'JobManagerError', 'SavepointError', 'NatsConnectError', 'BucketLayoutError', 'CheckpointLocationError', 'RegistrationRefusedError', 'PortInUseError', 'JobManagerUnreachableError'].includes(err.name);
  process.stderr.write(`weir: ${err.message}\n`);
  if (!known && process.env.WEIR_DEBUG) process.stderr.write(`${err.stack}\n`);
  process.exitCode = known ? 2 : 1;
}
