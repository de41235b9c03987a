import { buildLayeredConfig, type WeirConfig } from '../config/configuration.ts';
import { buildJobGraph, type JobGraph } from '../graph/job-graph.ts';
import { jobNameOf } from '../graph/job-name.ts';
import { buildStreamGraph } from '../graph/stream-graph.ts';
import { JobArgs } from './job-args.ts';
import { JobBuildError } from './job-build-error.ts';
import { withSourceCheckpointingDefaults } from './source-checkpointing-defaults.ts';
import { StreamExecutionEnvironment } from './stream-execution-environment.ts';

export type JobBuilder = (env: StreamExecutionEnvironment, args: JobArgs) => void | Promise<void>;

/** Settings from outside the job: a config file, then the command line, which wins over the job's own. */
export interface ConfigLayers {
  readonly file?: Readonly<Record<string, unknown>>;
  /** Where `file` was read from: errors about its keys name it. */
  readonly filePath?: string;
  readonly commandLine?: Readonly<Record<string, unknown>>;
}

export interface PlanOptions {
  /** The module the job was loaded from: a builder that throws is then a JobBuildError naming it. */
  readonly modulePath?: string;
  /** Where the plan is made when that is not the JobManager's thread (named in a JobBuildError). */
  readonly builtIn?: string;
}

export interface JobPlan {
  /** pipeline.name (env.setJobName, `weir run --name`), else the first source's name. */
  readonly name: string;
  /** @internal The job graph the plan runs (the JobMaster's and the CLI's). */
  readonly jobGraph: JobGraph;
  readonly config: WeirConfig;
}

/** What a job module exports by default. Every TaskManager runs it to build the same graph. */
export interface JobDefinition {
  readonly kind: 'weir-job';
  readonly build: JobBuilder;
  /** Runs the builder and turns what it recorded into a job graph and the effective configuration. */
  plan(args: readonly string[], layers?: ConfigLayers, options?: PlanOptions): Promise<JobPlan>;
}

export function defineJob(build: JobBuilder): JobDefinition {
  if (typeof build !== 'function') throw new TypeError('defineJob needs a function (env, args) => { ... }');
  return {
    kind: 'weir-job',
    build,
    async plan(args, layers = {}, options = {}) {
      const env = new StreamExecutionEnvironment();
      try {
        await build(env, new JobArgs(args));
      } catch (e) {
        // A job defined in code gets its own error back; from a module, it needs the module's name.
        throw options.modulePath === undefined ? e : new JobBuildError(options.modulePath, e, options.builtIn);
      }
      const settings = [layers.file, env.jobSettings as Record<string, unknown>, layers.commandLine];
      const config = withSourceCheckpointingDefaults(
        buildLayeredConfig([
          { source: { kind: 'file', ...(layers.filePath ? { path: layers.filePath } : {}) }, settings: layers.file },
          { source: { kind: 'job' }, settings: settings[1] },
          { source: { kind: 'command-line' }, settings: layers.commandLine },
        ]),
        settings,
        env.transformations,
      );
      const streamGraph = buildStreamGraph(env.transformations, {
        parallelism: config['parallelism.default'],
        maxParallelism: config['pipeline.max-parallelism'],
      });
      const jobGraph = buildJobGraph(streamGraph);
      const name = jobNameOf(jobGraph, config['pipeline.name']);
      return { name, jobGraph, config };
    },
  };
}

export function isJobDefinition(value: unknown): value is JobDefinition {
  return typeof value === 'object' && value !== null && (value as JobDefinition).kind === 'weir-job';
}
