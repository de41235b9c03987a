import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresCdcOptionError, PostgresCdcSource, type PostgresCdcOptions } from '../../../src/connectors/postgres/index.ts';

const base: PostgresCdcOptions = { host: '127.0.0.1', port: 5432, user: 'u', password: 'p', database: 'shop', tables: ['public.orders'] };

test('PostgresCdcSource applies the defaults (Flink CDC postgres-cdc defaults where it has them)', () => {
  const o = new PostgresCdcSource(base).options;
  assert.equal(o.slotName, 'weir');
  assert.equal(o.publicationName, 'weir_publication');
  assert.equal(o.chunkSize, 8096);
  assert.equal(o.lsnCommitCheckpointsDelay, 3);
  assert.deepEqual(o.startup, { mode: 'initial' });
  assert.equal(o.createMissing, true);
  assert.equal(o.connectTimeoutMs, 10_000);
});

test('a bad option is refused at construction, naming the option', () => {
  const bad: Array<[Partial<PostgresCdcOptions>, string, RegExp]> = [
    [{ tables: [] }, 'tables', /schema\.table/],
    [{ database: '' }, 'database', /required/],
    [{ port: 0 }, 'port', /TCP port/],
    [{ slotName: 'My-Slot' }, 'slotName', /lower-case letters/],
    [{ slotName: 'x'.repeat(57) }, 'slotName', /at most 56/],
    [{ chunkSize: 0 }, 'chunkSize', /positive integer/],
    [{ lsnCommitCheckpointsDelay: -1 }, 'lsnCommitCheckpointsDelay', />= 0/],
    [{ startup: { mode: 'specific', lsn: 'nope' } }, 'startup', /16\/B374D848/],
    [{ startup: { mode: 'earliest' } as never }, 'startup', /one of initial, snapshot-only/],
  ];
  for (const [change, option, message] of bad) {
    const e = (() => {
      try {
        new PostgresCdcSource({ ...base, ...change } as PostgresCdcOptions);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    assert.ok(e instanceof PostgresCdcOptionError, `${option}: ${String(e)}`);
    assert.equal(e.option, option);
    assert.match(e.message, message);
  }
});

test('CDC jobs on PostgreSQL get an aligned-checkpoint timeout below the checkpoint timeout', () => {
  const s = new PostgresCdcSource(base);
  assert.equal(s.defaultAlignedCheckpointTimeout(60_000), 15_000);
  assert.equal(s.defaultAlignedCheckpointTimeout(600_000), 30_000);
});
