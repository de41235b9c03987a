import { compileTransform, type CompiledTransform } from '../../../src/pipeline/expression/index.ts';

/** One table of every type the expression tests use, as a MySQL CDC schema record gives it. */
export const COLUMNS = [
  { name: 'id', type: 'int' },
  { name: 'big', type: 'bigint' },
  { name: 'name', type: 'varchar(20)' },
  { name: 'price', type: 'decimal(10,2)' },
  { name: 'qty', type: 'decimal(12,4)' },
  { name: 'ratio', type: 'double' },
  { name: 'flag', type: 'tinyint(1)' },
  { name: 'd', type: 'date' },
  { name: 'ts', type: 'datetime(3)' },
  { name: 'ts2', type: 'datetime(3)' },
  { name: 'lts', type: 'timestamp(3)' },
  { name: 'tm', type: 'time' },
];

export const ROW = {
  id: 7,
  big: 9007199254740993n,
  name: ' Abc_x ',
  price: '10.25',
  qty: '3.0000',
  ratio: 0.5,
  flag: true,
  d: '2024-02-29',
  ts: '2024-02-29 13:45:06.500',
  ts2: '2025-03-01 00:00:00.000',
  lts: '2024-02-29T05:45:06.500Z',
  tm: '13:45:06',
};

export const NULL_ROW = Object.fromEntries(COLUMNS.map((c) => [c.name, null]));

export const CLOCK_MS = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

export const META = { namespaceName: 'shop', schemaName: null, tableName: 'orders', dataEventType: '+I' };

export function compile(projection: string, filter?: string, timeZone = 'Asia/Shanghai'): CompiledTransform {
  return compileTransform({ projection, filter, columns: COLUMNS, dialect: 'mysql', ruleIndex: 0 }, { clock: () => CLOCK_MS, timeZone });
}

/** The value of one expression on a row. */
export function evaluate(expression: string, row: Record<string, unknown> = ROW, timeZone?: string): unknown {
  return compile(`${expression} AS v`, undefined, timeZone).apply(row, META)!.v;
}
