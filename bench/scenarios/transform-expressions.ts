// Scenario `transform-expressions`: rows per second of a pipeline transform's projection + filter,
// compiled once (issue 33). Variants:
//   generated   compileTransform: one JS function made with `new Function` from the expressions
//   closures    the same expressions as a tree of composed closures over the same runtime helpers
//               (what a closure compiler would build), to choose between the two designs
//   copy        the row copied unchanged ({...row}): the floor any transform pays per row
// Projection: `*, price * qty AS total, UPPER(name) AS uname, CASE WHEN price > 100 THEN 'big'
// ELSE 'small' END AS size, __table_name__ AS tbl`; filter: `id % 10 <> 0 AND name IS NOT NULL`
// (90% of the rows pass). Rows as weir's MySQL source gives them (DECIMAL as text).
import { fmtNumber, fmtRatio, median, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import { compileTransform, type TransformRowMeta } from '../../src/pipeline/expression/index.ts';
import { RUNTIME_LIBRARY as rt } from '../../src/pipeline/expression/runtime-library.ts';
import { ExactDecimal } from '../../src/pipeline/expression/exact-decimal.ts';

const COLUMNS = [
  { name: 'id', type: 'int' },
  { name: 'name', type: 'varchar(40)' },
  { name: 'price', type: 'decimal(10,2)' },
  { name: 'qty', type: 'decimal(10,3)' },
  { name: 'created', type: 'datetime(3)' },
];
const PROJECTION = "*, price * qty AS total, UPPER(name) AS uname, CASE WHEN price > 100 THEN 'big' ELSE 'small' END AS size, __table_name__ AS tbl";
const FILTER = 'id % 10 <> 0 AND name IS NOT NULL';
const META: TransformRowMeta = { namespaceName: 'shop', schemaName: null, tableName: 'orders', dataEventType: '+I' };

type Row = Record<string, unknown>;
type Fn = (r: Row, m: TransformRowMeta) => unknown;

function rows(n: number): Row[] {
  return Array.from({ length: Math.min(n, 65_536) }, (_, i) => ({
    id: i,
    name: `customer-${i % 977}`,
    price: `${(i * 37) % 20_000}.${String(i % 100).padStart(2, '0')}`,
    qty: `${i % 50}.${String(i % 1000).padStart(3, '0')}`,
    created: '2024-02-29 13:45:06.500',
  }));
}

/** The same projection and filter as composed closures. */
function closureVariant(): (r: Row, m: TransformRowMeta) => Row | null {
  const col = (n: string): Fn => (r) => r[n] ?? null;
  const decCol = (n: string): Fn => (r) => rt.dec(r[n]);
  const k = (v: unknown): Fn => () => v;
  const call1 = (f: (a: never) => unknown, a: Fn): Fn => (r, m) => f(a(r, m) as never);
  const call2 = (f: (a: never, b: never) => unknown, a: Fn, b: Fn): Fn => (r, m) => f(a(r, m) as never, b(r, m) as never);
  const and = (a: Fn, b: Fn): Fn => (r, m) => {
    const x = a(r, m);
    if (x === false) return false;
    const y = b(r, m);
    return y === false ? false : x === null || y === null ? null : true;
  };
  const filter = and((r, m) => rt.ne(rt.cmp(call2(rt.imod, col('id'), k(10))(r, m), 0)), (r, m) => col('name')(r, m) !== null);
  const total = call2(rt.xmul, decCol('price'), decCol('qty'));
  const uname = call1(rt.upper, col('name'));
  const hundred = ExactDecimal.fromInteger(100);
  const size: Fn = (r, m) => (rt.xcmp(decCol('price')(r, m) as ExactDecimal, hundred) > 0 ? 'big' : 'small');
  const tbl: Fn = (_r, m) => m.tableName;
  return (r, m) => {
    if (filter(r, m) !== true) return null;
    return { id: r.id, name: r.name, price: r.price, qty: r.qty, created: r.created, total: rt.decOut(total(r, m) as ExactDecimal, 5), uname: uname(r, m), size: size(r, m), tbl: tbl(r, m) };
  };
}

function measure(apply: (r: Row, m: TransformRowMeta) => Row | null, data: Row[], n: number): { rowsPerSecond: number; passed: number } {
  let passed = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) if (apply(data[i % data.length]!, META) !== null) passed++;
  return { rowsPerSecond: n / ((performance.now() - start) / 1000), passed };
}

export const transformExpressions: Scenario = {
  name: 'transform-expressions',
  description: 'rows/s of a compiled pipeline transform (projection + filter): generated code vs composed closures',
  defaultRuns: 5,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const n = options.records ?? 1_000_000;
    const data = rows(n);
    const generated = compileTransform({ projection: PROJECTION, filter: FILTER, columns: COLUMNS, dialect: 'mysql' }, { clock: Date.now, timeZone: 'UTC' });
    const variants: [string, (r: Row, m: TransformRowMeta) => Row | null][] = [
      ['generated', generated.apply],
      ['closures', closureVariant()],
      ['copy', (r) => ({ ...r })],
    ];
    // The two compiled variants must agree before they are timed.
    const closures = variants[1]![1];
    for (const r of data.slice(0, 1000)) {
      if (JSON.stringify(generated.apply(r, META)) !== JSON.stringify(closures(r, META))) throw new Error(`variants disagree on ${JSON.stringify(r)}`);
    }
    const samples: Record<string, number[]> = {};
    for (let run = 0; run < options.runs + 1; run++) {
      for (const [id, apply] of variants) {
        const { rowsPerSecond, passed } = measure(apply, data, n);
        if (run === 0) continue; // warm-up
        (samples[id] ??= []).push(rowsPerSecond);
        options.log(`${id} run ${run}: ${fmtNumber(rowsPerSecond)} rows/s (${passed} passed the filter)`);
      }
    }
    const med = Object.fromEntries(Object.entries(samples).map(([id, s]) => [id, median(s)]));
    return {
      table: {
        columns: ['variant', 'rows/s (median)', 'ns/row', 'vs generated'],
        rows: Object.keys(samples).map((id) => [id, fmtNumber(med[id]!), fmtNumber(1e9 / med[id]!), fmtRatio(med[id]! / med.generated!)]),
      },
      notes: [`projection: ${PROJECTION}`, `filter: ${FILTER}`, `${n} rows per run, ${options.runs} runs after a warm-up`],
      data: { rows: n, samples, medians: med, code: generated.code },
    };
  },
};
