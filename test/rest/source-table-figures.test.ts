// A CDC reader's per-table figures (`cdc_table_<figure>:<db.table>`) in /metrics as one family per
// figure with a `table` label, and in GET /jobs/:id as the subtask's source figures (which the
// dashboard's CDC card sums per table). A stand-in reader reports them beside a DataGen source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createJobMaster, defineJob } from '../../src/index.ts';
import type { Source, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../src/api/source.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { TableFigures } from '../../src/connectors/cdc/table-figures.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { singleJob } from '../../src/rest/job-directory.ts';
import { createMetricsEndpoint } from '../../src/rest/prometheus.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

/** DataGen whose readers also report per-table figures as a CDC reader does. */
function withTableFigures(inner: Source<string, unknown>): Source<string, unknown> {
  return {
    boundedness: inner.boundedness,
    createSplits: (ctx: SplitEnumeratorContext) => inner.createSplits(ctx),
    createReader(ctx: SourceReaderContext): SourceReader<string, unknown> {
      const r = inner.createReader(ctx);
      const figures = new TableFigures();
      figures.count('app', 'orders', 'r', 40);
      figures.count('app', 'orders', 'c', 3);
      figures.count('app', 'orders', 'ddl');
      figures.count('app', 'items', 'd', 2);
      return {
        addSplits: (s) => r.addSplits(s),
        notifyNoMoreSplits: () => r.notifyNoMoreSplits(),
        pollNext: (o) => r.pollNext(o),
        isAvailable: () => r.isAvailable(),
        snapshotState: (id) => r.snapshotState(id),
        metrics: () => figures.metrics(),
        close: () => r.close?.(),
      };
    },
  };
}

test('per-table CDC figures: /metrics families with a table label, the subtask figures of the job view', { timeout: 30_000 }, async () => {
  const job = defineJob((env) => {
    env.fromSource(withTableFigures(DataGen.of((i) => `gen ${i}`, { ratePerSecond: 50 }) as Source<string, unknown>), { name: 'Source: cdc', uid: 'cdc' }).sinkTo(new DiscardSink<string>(), { name: 'Sink: discard', uid: 'sink' });
  });
  const master = await createJobMaster({ job, log: silentLogger });
  const result = master.run();
  const metrics = createMetricsEndpoint(singleJob(master));
  try {
    const sample = /weir_source_reader_cdc_table_inserts\{([^}]*)\} (\d+)/;
    let text = '';
    // The TaskManager reports its subtasks' figures every 500 ms.
    while (!sample.test((text = await metrics.scrape()))) await new Promise((r) => setTimeout(r, 50));
    const line = (family: string, table: string) => new RegExp(`^${family}\\{[^}]*table="${table.replace('.', '\\.')}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1];
    assert.equal(line('weir_source_reader_cdc_table_snapshot_rows', 'app.orders'), '40');
    assert.equal(line('weir_source_reader_cdc_table_inserts', 'app.orders'), '3');
    assert.equal(line('weir_source_reader_cdc_table_schema_changes', 'app.orders'), '1');
    assert.equal(line('weir_source_reader_cdc_table_deletes', 'app.items'), '2');
    assert.match(sample.exec(text)![1]!, /vertex="Source: cdc( -> [^"]*)?"/);
    const source = master.taskMetrics().find((t) => t.source)?.source;
    assert.equal(source?.['cdc_table_inserts:app.orders'], 3);
  } finally {
    await metrics.stop(SHUTDOWN);
    await master.cancel();
    await result;
  }
});
