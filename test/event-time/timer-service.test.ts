// The timer service of keyed operators on its own, with a manual clock: event-time timers fire
// in order as the watermark passes them, one per key and timestamp, with their key current;
// processing-time timers fire as mail when the clock passes them; timers are keyed state, so a
// snapshot restored into other key-group ranges (a rescale) brings each subtask its keys' timers,
// and processing-time timers that came due meanwhile fire after the restore.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyGroupFor, type Key } from '../../src/state/key-group.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { Mailbox } from '../../src/worker/mailbox.ts';
import { ProcessingTimeService } from '../../src/worker/processing-time-service.ts';
import { InternalTimerService, type FiredTimer } from '../../src/worker/timers/internal-timer-service.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

const MAX_P = 128;

function service(clock: ManualClock, range = { start: 0, end: MAX_P - 1 }) {
  const backend = new HeapKeyedStateBackend(range, MAX_P, 'op', () => 'test');
  const mailbox = new Mailbox();
  const fired: Array<[string, Key, number, string | number | null]> = [];
  const timers = new InternalTimerService({
    name: 'test',
    backend,
    processingTime: new ProcessingTimeService(clock, mailbox),
    triggerable: {
      onEventTime: (t: FiredTimer) => {
        assert.equal(backend.currentKey, t.key, 'the timer key is current');
        fired.push(['event', t.key, t.timestamp, t.namespace]);
      },
      onProcessingTime: (t: FiredTimer) => fired.push(['processing', t.key, t.timestamp, t.namespace]),
    },
  });
  timers.open();
  const runMail = () => {
    for (let m = mailbox.take(); m; m = mailbox.take()) void m.run();
  };
  const at = (key: Key, fn: () => void) => {
    backend.setCurrentKey(key);
    fn();
  };
  return { backend, timers, fired, runMail, at };
}

test('event-time timers fire in timestamp order across keys, once per key and timestamp, deleted ones not at all', () => {
  const { timers, fired, at } = service(new ManualClock(0));
  at('a', () => timers.registerEventTimeTimer(null, 30));
  at('b', () => timers.registerEventTimeTimer(null, 10));
  at('a', () => timers.registerEventTimeTimer(null, 10));
  at('a', () => timers.registerEventTimeTimer(null, 10)); // again: still one
  at('c', () => timers.registerEventTimeTimer(null, 20));
  at('c', () => timers.deleteEventTimeTimer(null, 20));
  at('b', () => timers.registerEventTimeTimer('w', 10)); // another namespace: another timer
  timers.advanceWatermark(9);
  assert.deepEqual(fired, []);
  timers.advanceWatermark(25);
  assert.deepEqual(fired, [
    ['event', 'b', 10, null],
    ['event', 'a', 10, null],
    ['event', 'b', 10, 'w'],
  ]);
  // Deleted, registered again: it fires once.
  at('c', () => timers.registerEventTimeTimer(null, 20));
  timers.advanceWatermark(Infinity);
  assert.deepEqual(fired.slice(3), [
    ['event', 'c', 20, null],
    ['event', 'a', 30, null],
  ]);
  assert.equal(timers.currentWatermark, Infinity);
});

test('a timer registered while timers fire fires in the same advance when it is due', () => {
  const clock = new ManualClock(0);
  const backend = new HeapKeyedStateBackend({ start: 0, end: MAX_P - 1 }, MAX_P, 'op', () => 'test');
  const fired: number[] = [];
  const timers: InternalTimerService = new InternalTimerService({
    name: 't',
    backend,
    processingTime: new ProcessingTimeService(clock, new Mailbox()),
    triggerable: {
      onEventTime: (t) => {
        fired.push(t.timestamp);
        if (t.timestamp < 40) timers.registerEventTimeTimer(null, t.timestamp + 10);
      },
      onProcessingTime: () => {},
    },
  });
  timers.open();
  backend.setCurrentKey('k');
  timers.registerEventTimeTimer(null, 10);
  timers.advanceWatermark(35);
  assert.deepEqual(fired, [10, 20, 30]);
  timers.advanceWatermark(100);
  assert.deepEqual(fired, [10, 20, 30, 40]);
});

test('processing-time timers fire as mail once the clock passes them, earliest first, never synchronously', () => {
  const clock = new ManualClock(1000);
  const { timers, fired, runMail, at } = service(clock);
  at('a', () => timers.registerProcessingTimeTimer(null, 1500));
  at('b', () => timers.registerProcessingTimeTimer(null, 1200)); // earlier: the clock callback moves
  at('a', () => timers.registerProcessingTimeTimer(null, 900)); // already due: fires with the next mail
  assert.deepEqual(fired, [], 'nothing fires inside a registration');
  clock.advance(0);
  runMail();
  assert.deepEqual(fired, [['processing', 'a', 900, null]]);
  clock.advance(300);
  runMail();
  assert.deepEqual(fired.slice(1), [['processing', 'b', 1200, null]]);
  at('a', () => timers.deleteProcessingTimeTimer(null, 1500));
  clock.advance(1000);
  runMail();
  assert.deepEqual(fired.slice(2), [], 'deleted');
});

test('timers are keyed state: a snapshot restored at another parallelism gives each subtask its keys timers; processing-time ones due meanwhile fire after the restore', () => {
  const clock = new ManualClock(10_000);
  const a = service(clock);
  const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
  keys.forEach((k, i) => a.at(k, () => {
    a.timers.registerEventTimeTimer(null, 100 + i);
    a.timers.registerProcessingTimeTimer(null, 10_500 + i);
  }));
  // A composite key keeps its parts across the snapshot.
  a.at(['x', 1], () => a.timers.registerEventTimeTimer(null, 99));
  const captured = a.backend.snapshot();

  // The job is down for a while: the processing-time timers come due.
  clock.advance(5000);
  const halves = [
    { start: 0, end: 63 },
    { start: 64, end: 127 },
  ].map((range) => {
    const b = new HeapKeyedStateBackend(range, MAX_P, 'op', () => 'test');
    for (const { descriptor, snapshot } of captured.tables) {
      const info = { name: descriptor.name, kind: descriptor.kind, serializer: 'msgpack', version: 1 };
      for (let kg = range.start; kg <= range.end; kg++) {
        for (const slice of snapshot.keyGroupSlices(kg, 1000)) b.restoreEntries(info, kg, slice.map(([k, v]) => [k, structuredClone(v)] as const));
      }
    }
    return b;
  });
  for (const t of captured.tables) t.snapshot.release();

  const firedBy: string[][] = [];
  halves.forEach((backend, i) => {
    const mailbox = new Mailbox();
    const fired: string[] = [];
    firedBy.push(fired);
    const timers = new InternalTimerService({
      name: 'test',
      backend,
      processingTime: new ProcessingTimeService(clock, mailbox),
      triggerable: {
        onEventTime: (t) => fired.push(`event ${JSON.stringify(t.key)} ${t.timestamp}`),
        onProcessingTime: (t) => fired.push(`processing ${JSON.stringify(t.key)} ${t.timestamp}`),
      },
    });
    timers.open();
    clock.advance(0);
    for (let m = mailbox.take(); m; m = mailbox.take()) void m.run();
    timers.advanceWatermark(Infinity);
    const mine = [...keys, ['x', 1] as Key].filter((k) => {
      const kg = keyGroupFor(k, MAX_P);
      return kg >= (i === 0 ? 0 : 64) && kg <= (i === 0 ? 63 : 127);
    });
    const expected = [
      ...mine.filter((k) => typeof k === 'string').map((k) => `processing ${JSON.stringify(k)} ${10_500 + keys.indexOf(k as string)}`).sort(byTime),
      ...mine.map((k) => `event ${JSON.stringify(k)} ${typeof k === 'string' ? 100 + keys.indexOf(k) : 99}`).sort(byTime),
    ];
    assert.deepEqual(fired, expected, `subtask ${i}: its keys' timers, processing-time ones first (due at once), each in time order`);
  });
  assert.equal(firedBy[0]!.length + firedBy[1]!.length, 2 * keys.length + 1, 'every timer fired exactly once over the two subtasks');
});

function byTime(a: string, b: string): number {
  return Number(a.split(' ').at(-1)) - Number(b.split(' ').at(-1));
}
