// Keys -> key groups -> subtasks: the functions themselves, and that running jobs route every key
// to the subtask those functions name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { executeJob, hashKey, keyGroupFor, keyGroupRangeForSubtask, operatorIndexForKeyGroup, type Key } from '../../src/index.ts';
import { murmurString } from '../../src/state/key-group.ts';
import keyPlacementJob, { placementKeys, type Placement } from '../fixtures/jobs/key-placement.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';

const KEY_PLACEMENT = fileURLToPath(new URL('../fixtures/jobs/key-placement.ts', import.meta.url));

/** Textbook murmur3 x86_32 over bytes, written independently of weir's. */
function murmur3Bytes(bytes: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
  let h = seed >>> 0;
  const blocks = Math.floor(bytes.length / 4);
  for (let b = 0; b < blocks; b++) {
    const i = b * 4;
    let k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k = Math.imul(rotl(Math.imul(k, c1), 15), c2);
    h ^= k;
    h = (Math.imul(rotl(h, 13), 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = bytes.length & 3;
  if (rest > 0) {
    let k = 0;
    if (rest === 3) k ^= bytes[tail + 2]! << 16;
    if (rest >= 2) k ^= bytes[tail + 1]! << 8;
    k ^= bytes[tail]!;
    h ^= Math.imul(rotl(Math.imul(k, c1), 15), c2);
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

describe('key groups', () => {
  test('the reference murmur3 reproduces the published test vectors', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    assert.equal(murmur3Bytes(enc(''), 0), 0);
    assert.equal(murmur3Bytes(enc(''), 1), 0x514e28b7);
    assert.equal(murmur3Bytes(enc('aaaa'), 0x9747b28c), 0x5a97808a);
    assert.equal(murmur3Bytes(enc('Hello, world!'), 0x9747b28c), 0x24884cba);
    assert.equal(murmur3Bytes(enc('The quick brown fox jumps over the lazy dog'), 0x9747b28c), 0x2fa826cd);
  });

  test('string hashing is murmur3 x86_32 over the UTF-16LE code units', () => {
    const samples = ['', 'a', 'ab', 'abc', 'word', 'user-12345', 'Grüße', '日本語のテキスト', '😀 emoji', 'x'.repeat(1001)];
    for (const s of samples) {
      for (const seed of [0, 0x6e, 0x62, 0x75]) {
        assert.equal(murmurString(s, seed), murmur3Bytes(Buffer.from(s, 'utf16le'), seed), `${JSON.stringify(s)} seed ${seed}`);
      }
    }
    assert.equal(hashKey('word'), murmur3Bytes(Buffer.from('word', 'utf16le'), 0));
  });

  test('hashKey keeps types apart and treats equal keys alike', () => {
    assert.notEqual(hashKey(1), hashKey('1'));
    assert.notEqual(hashKey(true), hashKey('t'));
    assert.notEqual(hashKey(['a', 1]), hashKey(['a', '1']));
    assert.notEqual(hashKey(['a', 'b']), hashKey(['b', 'a']));
    assert.equal(hashKey(12n), hashKey(12), 'a bigint and the number of the same integer value are the same key');
    assert.equal(hashKey(null), hashKey(undefined));
    assert.equal(hashKey(['x', [1, 2]]), hashKey(['x', [1, 2]]));
    for (const bad of [{}, Symbol('s'), () => 1] as unknown[]) assert.throws(() => hashKey(bad as Key), TypeError);
  });

  test('a number hashes as murmur3 over its decimal text, also where no string is made (integers 0..2^31-1)', () => {
    const viaText = (n: number) => murmur3Bytes(Buffer.from(String(n), 'utf16le'), 0x6e);
    const edges = [0, -0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 99999, 100000, 999999, 1e6, 9999999, 1e7, 99999999, 1e8, 999999999, 1e9, 2 ** 31 - 2, 2 ** 31 - 1];
    const around = [-1, -12345, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 1.5, -0.25, 1e21];
    let seed = 12345;
    const random = Array.from({ length: 20000 }, () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> (seed % 31);
    });
    for (const n of [...edges, ...around, ...random]) {
      assert.equal(hashKey(n), viaText(n), `key ${n}`);
      for (const maxP of [128, 5, 32768]) assert.equal(keyGroupFor(n, maxP), viaText(n) % maxP, `key ${n}, max parallelism ${maxP}`);
    }
    for (const s of ['', 'a', 'word', 'user-12345', 'Grüße', '😀']) assert.equal(keyGroupFor(s, 128), murmur3Bytes(Buffer.from(s, 'utf16le'), 0) % 128, s);
  });

  test('key groups spread keys over all groups', () => {
    for (const maxP of [16, 128]) {
      const perGroup = new Array<number>(maxP).fill(0);
      const n = maxP * 200;
      for (let i = 0; i < n; i++) {
        const kg = keyGroupFor(`key-${i}`, maxP);
        assert.ok(Number.isInteger(kg) && kg >= 0 && kg < maxP);
        perGroup[kg]!++;
      }
      // 200 expected per group; a fair hash stays well within half to double of that.
      assert.ok(Math.min(...perGroup) > 100 && Math.max(...perGroup) < 400, `${maxP}: ${Math.min(...perGroup)}..${Math.max(...perGroup)}`);
    }
  });

  test('subtask ranges are contiguous, cover every key group once, and invert operatorIndexForKeyGroup', () => {
    for (const maxP of [1, 5, 16, 128, 1000]) {
      for (const p of [1, 2, 3, 4, 7, 16, 128].filter((x) => x <= maxP)) {
        let next = 0;
        for (let s = 0; s < p; s++) {
          const r = keyGroupRangeForSubtask(s, p, maxP);
          assert.equal(r.start, next, `maxP ${maxP} p ${p} subtask ${s} starts where the previous range ended`);
          assert.ok(r.end >= r.start, `maxP ${maxP} p ${p} subtask ${s} owns at least one key group`);
          for (let kg = r.start; kg <= r.end; kg++) assert.equal(operatorIndexForKeyGroup(kg, p, maxP), s);
          next = r.end + 1;
        }
        assert.equal(next, maxP);
      }
    }
  });
});

describe('key placement in running jobs', { timeout: 60_000 }, () => {
  const KEYS = 400;

  function checkPlacement(records: Placement[], parallelism: number, maxParallelism: number): void {
    const keys = placementKeys(KEYS);
    assert.equal(records.length, keys.length * 2, 'every key arrives twice');
    const wrong: string[] = [];
    const used = new Set<number>();
    for (const r of records) {
      assert.deepEqual(r.currentKey, r.key, 'ctx.getCurrentKey() is the record key');
      assert.equal(r.parallelism, parallelism);
      assert.equal(r.maxParallelism, maxParallelism);
      const expected = operatorIndexForKeyGroup(keyGroupFor(r.key, maxParallelism), parallelism, maxParallelism);
      if (r.subtask !== expected) wrong.push(`${JSON.stringify(r.key)} on ${r.subtask}, expected ${expected}`);
      used.add(r.subtask);
    }
    assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} records on the wrong subtask`);
    assert.deepEqual([...used].sort(), Array.from({ length: parallelism }, (_, i) => i), 'every subtask gets keys');
    const got = records.map((r) => JSON.stringify(r.key)).sort();
    const want = [...keys, ...keys].map((k) => JSON.stringify(k)).sort();
    assert.deepEqual(got, want);
  }

  async function place(args: string[], config: Record<string, unknown>, taskManagers: number): Promise<Placement[]> {
    const id = uniqueId('placement');
    const { result, records } = await runCollecting<Placement>(id, () =>
      executeJob({ job: taskManagers > 0 ? KEY_PLACEMENT : keyPlacementJob, args: ['--collect-id', id, '--keys', String(KEYS), ...args], config, taskManagers }),
    );
    assert.equal(result.status, 'FINISHED', result.error?.message);
    return records;
  }

  test('parallelism 3, default maxParallelism 128', async () => {
    checkPlacement(await place([], {}, 0), 3, 128);
  });

  test('parallelism 3, maxParallelism 16 from env.setMaxParallelism', async () => {
    const records = await place(['--max-parallelism', '16'], {}, 0);
    checkPlacement(records, 3, 16);
    // The setting matters: some keys sit on another subtask with 128 key groups.
    assert.ok(records.some((r) => operatorIndexForKeyGroup(keyGroupFor(r.key, 128), 3, 128) !== r.subtask));
  });

  test('parallelism 3, maxParallelism 5 from pipeline.max-parallelism (uneven key group ranges)', async () => {
    checkPlacement(await place([], { 'pipeline.max-parallelism': 5 }, 0), 3, 5);
  });

  test('parallelism 4, maxParallelism 16, on 2 worker TaskManagers', async () => {
    checkPlacement(await place(['--max-parallelism', '16', '--parallelism', '4'], {}, 2), 4, 16);
  });
});
