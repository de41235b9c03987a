// CDC-shaped records as weir's MySQL and PostgreSQL sources emit them (column-codec.ts's types:
// BIGINT as bigint, blobs as Buffer, DECIMAL and dates as text), for the change format tests.
import type { ChangeRecord } from '../../src/connectors/mysql/index.ts';
import type { PostgresChangeRecord } from '../../src/connectors/postgres/index.ts';

const mysqlSource = (pos: number, row: number, snapshot = false) => ({ db: 'shop', table: 'orders', file: 'binlog.000003', pos, row, ts: 1_733_370_000_000 + pos, snapshot });

export const mysqlChanges: ChangeRecord[] = [
  { op: 'r', before: null, after: { id: 1n, customer: 'Ada', amount: '12.50', paid: true, note: null, placed: '2026-12-05 06:00:00', payload: Buffer.from([0, 1, 254, 255]) }, source: mysqlSource(4, 0, true) },
  { op: 'c', before: null, after: { id: 9_007_199_254_740_993n, customer: 'Brontë «ü»', amount: '-0.01', paid: false, note: 'line\nbreak "quoted"', placed: '2026-12-05 06:01:02', payload: Buffer.alloc(0) }, source: { ...mysqlSource(120, 0), gtid: '3e11fa47-71ca-11e1-9e33-c80aa9429562:23' } },
  {
    op: 'u',
    before: { id: 1n, customer: 'Ada', amount: '12.50', paid: true, note: null, placed: '2026-12-05 06:00:00', payload: Buffer.from([0, 1, 254, 255]) },
    after: { id: 1n, customer: 'Ada', amount: '13.75', paid: true, note: 'repriced', placed: '2026-12-05 06:00:00', payload: Buffer.from([0, 1, 254, 255]) },
    source: mysqlSource(300, 0),
  },
  { op: 'd', before: { id: 9_007_199_254_740_993n, customer: 'Brontë «ü»', amount: '-0.01', paid: false, note: 'line\nbreak "quoted"', placed: '2026-12-05 06:01:02', payload: Buffer.alloc(0) }, after: null, source: mysqlSource(300, 1) },
];

export const postgresChanges: PostgresChangeRecord[] = [
  {
    op: 'u',
    before: { id: 7, title: 'draft', score: 1.5 },
    after: { id: 7, title: 'final' },
    unchangedColumns: ['body'],
    source: { db: 'app', schema: 'public', table: 'posts', lsn: '16/B374D848', changeLsn: '16/B374D800', index: 2, txId: 771, ts: 1_733_370_001_000, snapshot: false },
  },
];

/** A value as text that tells bigints, bytes and numbers apart, keys sorted (values cross threads as structured clones, which turn Buffers into Uint8Arrays). */
export function canonical(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v instanceof Map) return `Map{${[...v].map(([k, x]) => `${canonical(k)}:${canonical(x)}`).join(',')}}`;
  if (typeof v === 'object' && v !== null) return `{${Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => `${k}:${canonical(x)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}
