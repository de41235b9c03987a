// weir's benchmarks: `npm run bench -- <scenario> [--runs N] [--records N] [scenario flags]`.
// Prints a table and writes bench/results/<scenario>-<timestamp>.json (and <scenario>.json, the
// latest run). No scenario: lists them.
import { dirname, join, relative } from 'node:path';
import { renderTable, writeResult, type Scenario, type ScenarioOptions } from './harness.ts';
import { asyncIo } from './scenarios/async.ts';
import { backpressure } from './scenarios/backpressure.ts';
import { cdc } from './scenarios/cdc.ts';
import { pipelineBench } from './scenarios/pipeline.ts';
import { checkpoint } from './scenarios/checkpoint.ts';
import { cluster } from './scenarios/cluster.ts';
import { codec } from './scenarios/codec.ts';
import { exchange } from './scenarios/exchange.ts';
import { haStorage } from './scenarios/ha-storage.ts';
import { jetstreamBench } from './scenarios/jetstream.ts';
import { jetstreamMemory } from './scenarios/jetstream-memory.ts';
import { kafkaBench } from './scenarios/kafka.ts';
import { nexmark } from './scenarios/nexmark.ts';
import { recovery } from './scenarios/recovery.ts';
import { savepoint } from './scenarios/savepoint.ts';
import { sinks } from './scenarios/sinks.ts';
import { wordcount } from './scenarios/wordcount.ts';
import { windows } from './scenarios/windows.ts';
import { state } from './scenarios/state.ts';
import { stateAccess } from './scenarios/state-access.ts';
import { largerThanHeap } from './scenarios/larger-than-heap.ts';
import { transformExpressions } from './scenarios/transform-expressions.ts';

/** Every scenario by name; add new ones here (checkpoint, recovery, backpressure, savepoint, cdc, ...). */
const SCENARIOS: ReadonlyMap<string, Scenario> = new Map([wordcount, checkpoint, recovery, backpressure, savepoint, cdc, codec, exchange, haStorage, cluster, windows, nexmark, asyncIo, sinks, state, stateAccess, largerThanHeap, jetstreamBench, jetstreamMemory, kafkaBench, transformExpressions, pipelineBench].map((s) => [s.name, s]));

function usage(): string {
  const lines = ['usage: npm run bench -- <scenario> [--runs N] [--records N] [scenario flags]', '', 'scenarios:'];
  for (const s of SCENARIOS.values()) {
    lines.push(`  ${s.name.padEnd(14)} ${s.description}`);
    for (const [flag, doc] of Object.entries(s.flags ?? {})) lines.push(`  ${''.padEnd(14)}   --${flag}: ${doc}`);
  }
  lines.push('', 'common options:', '  --runs N       measured runs per variant (default 5, or the scenario\'s own)', '  --records N    input size (each scenario has its own default)');
  return lines.join('\n');
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1, got '${text}'`);
  return n;
}

/**
 * `<scenario> --a 1 --b=2 --c`: the first bare word is the scenario; a flag followed by another
 * flag, by a scenario name or by nothing is a switch ('true').
 */
function parseCommandLine(argv: readonly string[]): { positionals: string[]; values: Record<string, string> } {
  const positionals: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      values.help = 'true';
    } else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      if (eq > 0) values[arg.slice(2, eq)] = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--') && !SCENARIOS.has(argv[i + 1]!)) values[arg.slice(2)] = argv[++i]!;
      else values[arg.slice(2)] = 'true';
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, values };
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  const name = positionals[0];
  if (values.help !== undefined || name === undefined) {
    console.log(usage());
    return 0;
  }
  if (positionals.length > 1) throw new Error(`one scenario at a time, got: ${positionals.join(' ')}`);
  const scenario = SCENARIOS.get(name);
  if (!scenario) {
    console.error(`unknown scenario '${name}'\n\n${usage()}`);
    return 2;
  }
  const flags: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (k !== 'runs' && k !== 'records') flags[k] = v;
  const options: ScenarioOptions = {
    runs: positiveInt('runs', values.runs) ?? scenario.defaultRuns ?? 5,
    records: positiveInt('records', values.records),
    flags,
    log: (line) => process.stderr.write(`[${scenario.name}] ${line}\n`),
  };
  const startedAt = new Date();
  const result = await scenario.run(options);
  console.log('');
  console.log(renderTable(result.table));
  for (const extra of result.extraTables ?? []) console.log(`\n${extra.title}\n${renderTable(extra.table)}`);
  if (result.notes && result.notes.length > 0) console.log('\n' + result.notes.join('\n'));
  const path = writeResult(scenario.name, options, result, startedAt);
  console.log(`\nresults: ${relative(process.cwd(), path)} (latest: ${relative(process.cwd(), join(dirname(path), `${scenario.name}.json`))})`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);
