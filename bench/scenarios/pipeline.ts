// Scenario `pipeline` (issue 33): rows per second of a pipeline's snapshot with a transform
// against the same snapshot without it, into the same sink, side by side in one run.
//   plain      source shop.orders (MariaDB, snapshot only) -> files (debezium-json), no route or transform
//   transform  the same with a transform: `*, amount * 3 AS total, UPPER(status) AS ustatus,
//              __table_name__ AS shard`, filter `amount >= 0 AND customer IS NOT NULL` (every row
//              passes, so both write the same number of rows), primary key kept
// Both run the pipeline job in this process at parallelism 1 with checkpoints every 10 s, timed
// from submission to FINISHED (the job's start-up is in both). Goal: transform / plain >= 0.8x.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createLogger, executeJob } from '../../src/index.ts';
import { PIPELINE_JOB_MODULE, pipelineJobArgs } from '../../src/pipeline/pipeline-job.ts';
import { startMariaDb, type MariaDbServer } from '../../test/fixtures/mariadb-server.ts';
import { connect, createOrders } from '../../test/fixtures/cdc-workload.ts';
import { fmtNumber, fmtRatio, intFlag, summarize, timed, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import { runVariants, variantTable } from '../side-by-side.ts';

const GOAL = 0.8;

function pipelineText(server: MariaDbServer, out: string, withTransform: boolean): string {
  const transform = withTransform
    ? `transform:
  - source-table: shop.orders
    projection: \\*, amount * 3 AS total, UPPER(status) AS ustatus, __table_name__ AS shard
    filter: amount >= 0 AND customer IS NOT NULL
`
    : '';
  return `source:
  type: mariadb
  hostname: 127.0.0.1
  port: ${server.port}
  username: root
  password: '${server.password}'
  tables: shop.orders
  server-id: 5400-5403
  scan.startup.mode: snapshot
sink:
  type: files
  path: ${out}
${transform}pipeline:
  parallelism: 1
  execution.checkpointing.interval: 10 s
`;
}

async function runPipeline(dir: string, server: MariaDbServer, withTransform: boolean, round: number): Promise<number> {
  const out = join(dir, `out-${round}`);
  const file = join(dir, `pipeline-${round}.yaml`);
  const text = pipelineText(server, out, withTransform);
  writeFileSync(file, text);
  const { ms, value } = await timed(() =>
    executeJob({ job: PIPELINE_JOB_MODULE, args: pipelineJobArgs(file, text), config: { 'execution.checkpointing.dir': join(dir, `cp-${round}`) }, log: createLogger({ level: 'error', write: () => {} }) }),
  );
  if (value.status !== 'FINISHED') throw new Error(`the ${withTransform ? 'transform' : 'plain'} pipeline ended ${value.status}: ${value.error?.message ?? ''}`);
  rmSync(out, { recursive: true, force: true });
  rmSync(join(dir, `cp-${round}`), { recursive: true, force: true });
  return ms;
}

export const pipelineBench: Scenario = {
  name: 'pipeline',
  description: 'a pipeline snapshot with a transform (computed columns, filter) against the same without, into the same files sink (goal >= 0.8x)',
  defaultRuns: 3,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const rows = intFlag(options, 'records', 200_000);
    const dir = join(tmpdir(), `weir-bench-pipeline-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const server = await startMariaDb();
    try {
      const sql = await connect(server, 'mysql');
      await sql.query('CREATE DATABASE shop');
      await sql.query('USE shop');
      await createOrders(sql, 'orders', rows);
      await sql.end();
      let round = 0;
      options.log('warm-up: one run of each, not measured');
      if (options.flags.only === undefined) {
        await runPipeline(dir, server, false, ++round);
        await runPipeline(dir, server, true, ++round);
      }
      const m = await runVariants(options, rows, 'rows/s', { plain: () => runPipeline(dir, server, false, ++round), transform: () => runPipeline(dir, server, true, ++round) }, { transform: ['plain', 'transform'] });
      const ratio = m.ratios.transform ?? summarize([NaN]);
      return {
        table: variantTable(m, 'rows/s'),
        notes: [
          `${fmtNumber(rows)} rows of shop.orders, snapshot only, parallelism 1, files sink, ${options.runs} runs per variant, timed from submission to FINISHED.`,
          `transform / plain: ${fmtRatio(ratio.median)} (min ${fmtRatio(ratio.min)}, max ${fmtRatio(ratio.max)}); goal >= ${GOAL}x ${ratio.median >= GOAL ? 'met' : 'NOT met'}`,
        ],
        data: { rows, samples: m.samples, ratio },
      };
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
