// Embedded stores for the on-disk keyed state backend, on weir's access pattern: keys are
// [key group u16 BE][state u16 BE][key], values a few dozen bytes of MessagePack; state access is
// synchronous (a ValueState read returns the value), so point gets must be synchronous; writes
// come in batches (a cache's evictions, a restore's key groups).
//
//   node --import tsx bench/state-store-candidates.ts [--keys N]
//
// Candidates that are not installed are skipped (only the chosen one is a dependency).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr } from 'msgpackr';

const KEYS = Number(process.argv[process.argv.indexOf('--keys') + 1] || 200_000);
const BATCH = 1_000;
const packr = new Packr({ useRecords: false });

function keyOf(i: number): Buffer {
  const word = `word-${i}`;
  const b = Buffer.allocUnsafe(4 + Buffer.byteLength(word));
  b.writeUInt16BE(i % 128, 0);
  b.writeUInt16BE(1, 2);
  b.write(word, 4);
  return b;
}

const keys = Array.from({ length: KEYS }, (_, i) => keyOf(i));
const value = (i: number): Uint8Array => packr.pack({ word: `word-${i}`, count: i, sum: i * 1.5 });
/** A fixed random order of point accesses, the same for every candidate. */
const order = Array.from({ length: KEYS }, (_, i) => (i * 2_654_435_761) % KEYS);

interface Level {
  open(): Promise<void>;
  batch(ops: Array<{ type: 'put'; key: Buffer; value: Uint8Array }>): Promise<void>;
  getSync(key: Buffer): Uint8Array | undefined;
  close(): Promise<void>;
}

interface Candidate {
  readonly name: string;
  open(dir: string): Promise<Store | undefined>;
}
interface Store {
  putBatch(from: number, to: number, round: number): Promise<void>;
  get(key: Buffer): Uint8Array | undefined;
  close(): Promise<void>;
}

const candidates: Candidate[] = [
  {
    name: 'lmdb',
    async open(dir) {
      const lmdb = await import('lmdb').catch(() => undefined);
      if (!lmdb) return undefined;
      const db = lmdb.open({ path: dir, keyEncoding: 'binary', encoding: 'binary', noSync: true, noMetaSync: true, cache: false });
      return {
        async putBatch(from, to, round) {
          db.transactionSync(() => {
            for (let i = from; i < to; i++) db.put(keys[order[i]!]!, value(order[i]! + round));
          });
        },
        get: (key) => db.getBinaryFast(key),
        close: () => db.close(),
      };
    },
  },
  {
    name: 'classic-level',
    async open(dir) {
      // Not a dependency: installed by hand to run this comparison again.
      const mod = (await import(String('classic-level')).catch(() => undefined)) as { ClassicLevel: new (dir: string, options: object) => Level } | undefined;
      if (!mod) return undefined;
      const db = new mod.ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'view' });
      await db.open();
      return {
        async putBatch(from, to, round) {
          const ops = [];
          for (let i = from; i < to; i++) ops.push({ type: 'put' as const, key: keys[order[i]!]!, value: value(order[i]! + round) });
          await db.batch(ops);
        },
        get: (key) => db.getSync(key),
        close: () => db.close(),
      };
    },
  },
];

async function measure(c: Candidate): Promise<Record<string, number> | undefined> {
  const dir = mkdtempSync(join(tmpdir(), `weir-bench-${c.name}-`));
  try {
    const store = await c.open(dir);
    if (!store) return undefined;
    let t = performance.now();
    for (let i = 0; i < KEYS; i += BATCH) await store.putBatch(i, Math.min(KEYS, i + BATCH), 0);
    const load = KEYS / ((performance.now() - t) / 1000);
    t = performance.now();
    let found = 0;
    for (let i = 0; i < KEYS; i++) if (store.get(keys[order[i]!]!) !== undefined) found++;
    const get = KEYS / ((performance.now() - t) / 1000);
    if (found !== KEYS) throw new Error(`${c.name}: found ${found} of ${KEYS} keys`);
    t = performance.now();
    for (let i = 0; i < KEYS; i += BATCH) await store.putBatch(i, Math.min(KEYS, i + BATCH), 1);
    const update = KEYS / ((performance.now() - t) / 1000);
    await store.close();
    return { 'load puts/s': load, 'point gets/s': get, 'update puts/s': update };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const c of candidates) {
  const r = await measure(c);
  if (!r) console.log(`${c.name.padEnd(14)} not installed`);
  else console.log(`${c.name.padEnd(14)} ${Object.entries(r).map(([k, v]) => `${k} ${Math.round(v).toLocaleString('en')}`).join('   ')}`);
}
