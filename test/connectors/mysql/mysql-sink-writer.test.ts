// MySqlSinkWriter.abort() with fake sessions: no statement starts after an abort, also on a
// transaction whose session was still being opened when it came (its id unknown, so it could not
// be killed: its statements ran after the kills and waited out innodb_lock_wait_timeout on a row
// lock of a prepared transaction, holding up the restart for 50 s). And a session with statements
// in flight is killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlSinkWriter } from '../../../src/connectors/mysql/mysql-sink-writer.ts';
import type { MySqlSinkConnection } from '../../../src/connectors/mysql/mysql-sink-connection.ts';

interface FakeSession extends MySqlSinkConnection {
  readonly statements: string[];
  readonly ended: () => boolean;
}

/** A session that answers CONNECTION_ID() with `id` and records every other statement; `hold` keeps statements running until released. */
function session(id: number, hold?: Promise<void>): FakeSession {
  const statements: string[] = [];
  let ended = false;
  return {
    statements,
    ended: () => ended,
    sql: async <R>(text: string) => {
      if (text.startsWith('SELECT CONNECTION_ID()')) return [{ id }] as R[];
      statements.push(text);
      if (hold && text.startsWith('INSERT')) await hold;
      return [] as R[];
    },
    end: async () => {
      ended = true;
    },
  };
}

function writer(connect: () => Promise<MySqlSinkConnection>, control: MySqlSinkConnection): MySqlSinkWriter<{ id: number }> {
  return new MySqlSinkWriter<{ id: number }>({
    connect,
    control,
    table: { name: 'db.t', sqlName: '`db`.`t`', columns: [{ column: 'id', field: 'id', type: 'int' }], key: [] },
    mode: 'insert',
    prefix: 'weir-test',
    subtask: 0,
    server: 'localhost:3306',
    database: 'db',
    target: 'test sink',
    batchSize: 1,
    maxInFlight: 4,
    deadLetters: false,
  });
}

test('a transaction whose session opens after the abort runs no statement', async () => {
  const control = session(1);
  const data = session(2);
  let open!: (c: MySqlSinkConnection) => void;
  const w = writer(() => new Promise((resolve) => (open = resolve)), control);
  w.write({ id: 1 });
  const aborted = w.abort();
  open(data);
  await aborted;
  assert.deepEqual(data.statements, [], 'statements ran on a session opened after the abort');
  assert.deepEqual(control.statements, [], 'nothing was in flight to kill');
  // Its open XA transaction (none here) would end with it: the session is not left behind.
  assert.ok(data.ended(), 'the session opened after the abort was left open');
  assert.ok(control.ended(), 'the control session was left open');
});

test('a session with a statement in flight is killed, and nothing after that statement runs', async () => {
  const control = session(1);
  let release!: () => void;
  const data = session(7, new Promise((resolve) => (release = resolve)));
  const w = writer(async () => data, control);
  w.write({ id: 1 });
  // The insert is running (its session known) when the abort comes; a second one waits behind it.
  await waitUntil(() => data.statements.some((s) => s.startsWith('INSERT')));
  w.write({ id: 2 });
  const aborted = w.abort();
  await waitUntil(() => control.statements.length > 0);
  assert.deepEqual(control.statements, ['KILL 7']);
  // The killed session's statement ends (with an error on a real server).
  release();
  await aborted;
  assert.equal(data.statements.filter((s) => s.startsWith('INSERT')).length, 1, `the insert queued behind the killed one ran: ${data.statements.join('; ')}`);
});

async function waitUntil(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ready(); i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(ready(), 'the condition never came');
}
