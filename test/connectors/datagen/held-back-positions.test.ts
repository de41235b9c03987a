// Records held back (DataGenOptions.holdBack): each position emitted once, a held one only after
// the lane's steps up to position + delay, and a reader restored from any checkpoint (the lane's
// `next` alone) emits exactly what the uninterrupted reader emitted after that point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DataGenSource, type DataGenSplit } from '../../../src/connectors/datagen/datagen-source.ts';
import type { SourceReaderContext, SplitEnumeratorContext } from '../../../src/api/source.ts';

const COUNT = 3000;
const LANES = 3;
// Deterministic, irregular delays: about a fifth of the positions, by 1 to 40 positions.
const delay = (p: number) => ((p * 2654435761) % 97 < 20 ? 1 + ((p * 40503) % 40) : 0);
const source = () => new DataGenSource<number>({ generate: (p) => p, eventTime: (p) => p, count: COUNT, batch: 7, holdBack: { delay, maxDelay: 40 } });

interface Emitted {
  readonly position: number;
  readonly lane: number;
}

function reader(splits: DataGenSplit[]) {
  const r = source().createReader({ parallelism: 1, subtaskIndex: 0 } as unknown as SourceReaderContext);
  r.addSplits(splits);
  r.notifyNoMoreSplits();
  return r;
}

/** Polls until the end, calling `each` after every poll with what was emitted so far. */
function drain(splits: DataGenSplit[], each?: (emitted: Emitted[], snapshot: () => DataGenSplit[]) => void): Emitted[] {
  const r = reader(splits);
  const emitted: Emitted[] = [];
  const output = (lane: number) => ({ collect: (position: number) => void emitted.push({ position, lane }) });
  const out = { collect: () => assert.fail('every record goes to its lane'), createOutputForSplit: (id: string) => output(Number(id.slice(5))), releaseOutputForSplit: () => {} };
  for (let polls = 0; polls < 100_000; polls++) {
    const status = r.pollNext(out);
    each?.(emitted, () => r.snapshotState(0) as DataGenSplit[]);
    if (status === 'end') return emitted;
  }
  assert.fail('the reader did not end');
}

const initial = () => source().createSplits({ parallelism: LANES } as unknown as SplitEnumeratorContext) as DataGenSplit[];

test('every position once; a held position comes after its lane reached position + delay, the others in order', () => {
  const emitted = drain(initial());
  assert.equal(emitted.length, COUNT);
  assert.deepEqual([...emitted.map((e) => e.position)].sort((a, b) => a - b), Array.from({ length: COUNT }, (_, i) => i));
  let held = 0;
  for (let lane = 0; lane < LANES; lane++) {
    const seq = emitted.filter((e) => e.lane === lane).map((e) => e.position);
    assert.ok(seq.every((p) => p % LANES === lane));
    seq.forEach((p, i) => {
      const d = delay(p);
      // Emitted after every unheld position of the lane up to p + d, and before those after it.
      const afterMe = seq.slice(i + 1);
      const before = seq.slice(0, i);
      if (d > 0) {
        held++;
        for (let q = p + LANES; q <= Math.min(p + d, COUNT - 1); q += LANES) if (delay(q) === 0) assert.ok(before.includes(q), `${q} before held ${p} (delay ${d})`);
      } else {
        assert.ok(afterMe.every((q) => q > p || delay(q) > 0), `in order around ${p}`);
      }
    });
  }
  assert.ok(held > COUNT / 10, `some positions were held back (${held})`);
});

test('a reader restored from a snapshot taken after any poll emits what the uninterrupted one emitted after it', () => {
  const whole = drain(initial()).map((e) => e.position);
  let checked = 0;
  drain(initial(), (emitted, snapshot) => {
    if (emitted.length % 5 !== 0 && emitted.length !== COUNT) return; // a spread of points, not every one
    const rest = drain(snapshot()).map((e) => e.position);
    assert.deepEqual([...emitted.map((e) => e.position), ...rest].sort((a, b) => a - b), Array.from({ length: COUNT }, (_, i) => i), `restored after ${emitted.length}`);
    // Per lane, the same order as the uninterrupted run.
    const lanes = (xs: number[]) => Array.from({ length: LANES }, (_, l) => xs.filter((p) => p % LANES === l));
    assert.deepEqual(lanes([...emitted.map((e) => e.position), ...rest]), lanes(whole), `restored after ${emitted.length}`);
    checked++;
  });
  assert.ok(checked > 50, `restores checked: ${checked}`);
});
