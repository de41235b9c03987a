// Planning: graphs that cannot run are refused with a message that names the operator and the
// problem; operators are chained into vertices the way Flink chains them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, GraphValidationError, KeyedStream, type JobDefinition, type StreamExecutionEnvironment } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

const numbers = () => DataGen.sequence(0, 10);

/** Plans the job and expects a GraphValidationError whose message contains every fragment. */
async function assertInvalid(job: JobDefinition, ...fragments: Array<string | RegExp>): Promise<GraphValidationError> {
  let caught: unknown;
  try {
    await job.plan([]);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof GraphValidationError, `expected a GraphValidationError, got ${String(caught)}`);
  for (const f of fragments) {
    if (typeof f === 'string') assert.ok(caught.message.includes(f), `message ${JSON.stringify(caught.message)} names ${JSON.stringify(f)}`);
    else assert.match(caught.message, f);
  }
  return caught;
}

const job = (build: (env: StreamExecutionEnvironment) => void) => defineJob((env) => build(env));

describe('graph validation', () => {
  test('parallelism above maxParallelism', async () => {
    const e = await assertInvalid(
      job((env) => {
        env.setMaxParallelism(4);
        env.fromSource(numbers(), { uid: 'src', parallelism: 2 }).map((x) => x, { name: 'TooWide', parallelism: 8 }).sinkTo(new DiscardSink(), { parallelism: 2 });
      }),
      "operator 'TooWide'",
      'parallelism 8 is above maxParallelism 4',
    );
    assert.equal(e.operator, 'TooWide');
    // Where the user made the operator, so the message leads to the line.
    assert.ok(e.location?.includes('job-graph.test.ts'), `location ${e.location}`);
    assert.ok(e.message.includes('job-graph.test.ts'));
  });

  test('parallelism above maxParallelism set through the command-line config', async () => {
    const definition = job((env) => {
      env.fromSource(numbers(), { name: 'Numbers', uid: 'src' }).sinkTo(new DiscardSink());
    });
    await assert.rejects(
      definition.plan([], { commandLine: { 'parallelism.default': 6, 'pipeline.max-parallelism': 3 } }),
      (e: unknown) => e instanceof GraphValidationError && e.message.includes("'Numbers'") && e.message.includes('parallelism 6 is above maxParallelism 3'),
    );
  });

  test('forward() between different parallelisms', async () => {
    await assertInvalid(
      job((env) => {
        env
          .fromSource(numbers(), { name: 'Numbers', uid: 'src', parallelism: 2 })
          .forward()
          .map((x) => x * 2, { name: 'Doubler', parallelism: 3 })
          .sinkTo(new DiscardSink(), { parallelism: 3 });
      }),
      "operator 'Doubler'",
      "forward partitioning from 'Numbers' (parallelism 2)",
      'got 3',
      'rebalance()',
    );
  });

  test('a job with no sink', async () => {
    await assertInvalid(
      job((env) => {
        env.fromSource(numbers(), { uid: 'src' }).map((x) => x + 1);
      }),
      'no sink',
      '.sinkTo(',
    );
  });

  test('a job with nothing in it has no sink either', async () => {
    await assertInvalid(job(() => {}), 'no sink');
  });

  test('duplicate uid', async () => {
    const e = await assertInvalid(
      job((env) => {
        const s = env.fromSource(numbers(), { name: 'Numbers', uid: 'dup' });
        s.map((x) => x, { name: 'Copy', uid: 'dup' }).sinkTo(new DiscardSink(), { uid: 'sink' });
      }),
      "uid 'dup'",
      "'Numbers'",
      "operator 'Copy'",
      'unique',
    );
    assert.equal(e.operator, 'Copy');
  });

  test('a keyed operator without keyBy right before it', async () => {
    await assertInvalid(
      job((env) => {
        const s = env.fromSource(numbers(), { name: 'Numbers', uid: 'src' }).rebalance();
        new KeyedStream<number, number>(env, s.transformation, (x) => x)
          .process({ processElement: (v, _ctx, out) => out.collect(v) }, { name: 'NeedsKeys', uid: 'p' })
          .sinkTo(new DiscardSink());
      }),
      "operator 'NeedsKeys'",
      'keyBy',
      'rebalance',
    );
  });

  test('a stateful operator without uid is planned with a warning naming it', async () => {
    const plan = await job((env) => {
      env
        .fromSource(numbers(), { name: 'Numbers', uid: 'src' })
        .keyBy((x) => x % 3)
        .process<number>({ processElement: (v, _ctx, out) => out.collect(v) }, { name: 'Anonymous state' })
        .keyBy((x) => x)
        .sum(undefined, { name: 'Summed', uid: 'sum' })
        .sinkTo(new DiscardSink(), { uid: 'sink' });
    }).plan([]);
    const warnings = plan.jobGraph.warnings;
    const about = (name: string) => warnings.filter((w) => w.includes(`'${name}'`));
    assert.equal(about('Anonymous state').length, 1, `warnings: ${JSON.stringify(warnings)}`);
    assert.match(about('Anonymous state')[0]!, /uid/);
    assert.equal(about('Summed').length, 0, 'an operator with a uid gets no warning');
    assert.equal(about('Numbers').length, 0);
  });

  test('operators with uids and a sink plan without warnings', async () => {
    const plan = await job((env) => {
      env.fromSource(numbers(), { uid: 'src' }).keyBy((x) => x).sum(undefined, { uid: 'sum' }).sinkTo(new DiscardSink(), { uid: 'sink' });
    }).plan([]);
    assert.deepEqual(plan.jobGraph.warnings, []);
  });
});

describe('operator chaining', () => {
  test('source -> map -> filter -> sink at one parallelism is one vertex', async () => {
    const plan = await job((env) => {
      env.setParallelism(3);
      env
        .fromSource(numbers(), { name: 'Numbers', uid: 'src' })
        .map((x) => x + 1, { name: 'Inc' })
        .filter((x) => x % 2 === 0, { name: 'Even' })
        .sinkTo(new DiscardSink(), { name: 'Out', uid: 'sink' });
    }).plan([]);
    const g = plan.jobGraph;
    assert.equal(g.vertices.length, 1);
    assert.equal(g.edges.length, 0);
    const v = g.vertices[0]!;
    assert.equal(v.parallelism, 3);
    assert.ok(v.isSource);
    assert.deepEqual(v.operators.map((o) => o.name), ['Numbers', 'Inc', 'Even', 'Out']);
    assert.deepEqual(v.operators.map((o) => o.spec.kind), ['source', 'map', 'filter', 'sink']);
    assert.equal(v.name, 'Numbers -> Inc -> Even -> Out');
  });

  test('keyBy starts a new vertex behind a hash edge', async () => {
    const plan = await job((env) => {
      env.setParallelism(2);
      env
        .fromSource(numbers(), { name: 'Numbers', uid: 'src' })
        .map((x) => x, { name: 'Pre' })
        .keyBy((x) => x % 5)
        .sum(undefined, { name: 'Sum', uid: 'sum' })
        .map((x) => x, { name: 'Post' })
        .sinkTo(new DiscardSink(), { name: 'Out', uid: 'sink' });
    }).plan([]);
    const g = plan.jobGraph;
    assert.deepEqual(g.vertices.map((v) => v.operators.map((o) => o.name)), [['Numbers', 'Pre'], ['Sum', 'Post', 'Out']]);
    assert.equal(g.edges.length, 1);
    const e = g.edges[0]!;
    assert.equal(e.partitioner.kind, 'hash');
    assert.equal(e.source, g.vertices[0]);
    assert.equal(e.target, g.vertices[1]);
    assert.equal(e.sourceOperator, 1, 'the edge leaves from the chain\'s second operator');
  });

  test('a parallelism change, rebalance() and disableChaining() each break the chain', async () => {
    const plan = await job((env) => {
      env.setParallelism(2);
      env
        .fromSource(numbers(), { name: 'A', uid: 'src' })
        .map((x) => x, { name: 'B', parallelism: 3 })
        .rebalance()
        .map((x) => x, { name: 'C', parallelism: 3 })
        .map((x) => x, { name: 'D', parallelism: 3 })
        .disableChaining()
        .sinkTo(new DiscardSink(), { name: 'E', parallelism: 3, uid: 'sink' });
    }).plan([]);
    const g = plan.jobGraph;
    // disableChaining() is Flink's: the operator chains with neither its input nor its output.
    assert.deepEqual(g.vertices.map((v) => v.name), ['A', 'B', 'C', 'D', 'E']);
    assert.deepEqual(g.edges.map((e) => e.partitioner.kind), ['rebalance', 'rebalance', 'forward', 'forward']);
  });

  test('an operator with two inputs (union) is the head of its own vertex', async () => {
    const plan = await job((env) => {
      const a = env.fromSource(numbers(), { name: 'A', uid: 'a' });
      const b = env.fromSource(numbers(), { name: 'B', uid: 'b' });
      a.union(b).map((x) => x, { name: 'M' }).sinkTo(new DiscardSink(), { name: 'S', uid: 'sink' });
    }).plan([]);
    const g = plan.jobGraph;
    assert.deepEqual(g.vertices.map((v) => v.name), ['A', 'B', 'M -> S']);
    assert.deepEqual(g.edges.map((e) => [e.source.name, e.target.name, e.partitioner.kind]), [
      ['A', 'M -> S', 'forward'],
      ['B', 'M -> S', 'forward'],
    ]);
  });

  test('the fingerprint is stable for the same job and changes with its shape', async () => {
    const build = (p: number) =>
      job((env) => {
        env.setParallelism(p);
        env.fromSource(numbers(), { uid: 'src' }).keyBy((x) => x).sum(undefined, { uid: 'sum' }).sinkTo(new DiscardSink(), { uid: 'sink' });
      });
    const a = await build(2).plan([]);
    const b = await build(2).plan([]);
    const c = await build(3).plan([]);
    assert.equal(a.jobGraph.fingerprint, b.jobGraph.fingerprint);
    assert.notEqual(a.jobGraph.fingerprint, c.jobGraph.fingerprint);
    assert.deepEqual(a.jobGraph.vertices.map((v) => v.id), b.jobGraph.vertices.map((v) => v.id), 'operator ids are stable');
  });
});
