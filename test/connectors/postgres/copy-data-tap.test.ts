// CopyDataTap: a connection's bytes cut into messages before pg's parser. However the socket cuts
// them, a COPY's rows reach its reader whole and in order, and pg gets every other message whole,
// in order, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { CopyDataTap } from '../../../src/connectors/postgres/copy-data-tap.ts';
import { copyOutSubmittable } from '../../../src/connectors/postgres/copy-out.ts';

function message(type: string, body: Buffer | string = Buffer.alloc(0)): Buffer {
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(data.length + 4, 1);
  return Buffer.concat([header, data]);
}

/** A connected pg client as the tap sees it, with pg's parser played by a recorder of whole messages. */
function fakeClient(onMessage: (type: string, body: Buffer) => void) {
  const stream = new EventEmitter();
  stream.on('data', (chunk: Buffer) => {
    for (let at = 0; at < chunk.length; ) {
      assert.ok(at + 5 <= chunk.length, 'pg was given part of a message header');
      const next = at + 1 + chunk.readUInt32BE(at + 1);
      assert.ok(next <= chunk.length, 'pg was given part of a message');
      onMessage(String.fromCharCode(chunk[at]!), chunk.subarray(at + 5, next));
      at = next;
    }
  });
  return { connection: { stream } };
}

// A COPY of six rows (one split over two messages, two in one message, as the protocol allows),
// then a SELECT's result, as one simple query's replies.
const ROWS = ['1\tä', '2\t✓ b', '3\t\\N', '4\tsplit', '5\ta', '6\tb'];
const REPLY = Buffer.concat([
  message('H', Buffer.from([0, 0, 2, 0, 0, 0, 0])),
  message('d', '1\tä\n'),
  message('d', '2\t✓ b\n'),
  message('d', '3\t\\N\n'),
  message('d', '4\tsp'),
  message('d', 'lit\n'),
  message('d', '5\ta\n6\tb\n'),
  message('c'),
  message('C', 'COPY 6\0'),
  message('T', 'row description'),
  message('D', 'a data row'),
  message('C', 'SELECT 1\0'),
  message('Z', 'I'),
]);

async function readThrough(cuts: readonly number[]): Promise<{ rows: string[]; pg: string; gaps: number[] }> {
  let types = '';
  let ready: (() => void) | undefined;
  const client = fakeClient((type) => {
    types += type;
    if (type === 'Z') ready?.();
  });
  const tap = CopyDataTap.install(client)!;
  const rows: string[] = [];
  const gaps: number[] = [];
  const copy = copyOutSubmittable(
    'COPY t TO STDOUT; SELECT 1',
    (text, gap) => {
      gaps.push(gap);
      for (const r of text.slice(0, -1).split('\n')) rows.push(r.replace(/^\0+/, ''));
    },
    tap,
  );
  const s = copy.submittable as { submit(wire: { query(t: string): void }): void; handleReadyForQuery(): void };
  s.submit({ query: () => {} });
  ready = () => s.handleReadyForQuery();
  let from = 0;
  for (const cut of [...cuts, REPLY.length]) {
    client.connection.stream.emit('data', Buffer.from(REPLY.subarray(from, cut)));
    from = cut;
  }
  await copy.finished;
  return { rows, pg: types, gaps };
}

test('rows reach the reader whole and in order, and pg gets the other messages whole, wherever the socket cuts the bytes', async () => {
  for (let cut = 0; cut <= REPLY.length; cut++) {
    const r = await readThrough([cut]);
    assert.deepEqual(r.rows, ROWS, `cut at byte ${cut}`);
    assert.equal(r.pg, 'HcCTDCZ', `cut at byte ${cut}`);
  }
  const bytewise = await readThrough(Array.from({ length: REPLY.length - 1 }, (_, i) => i + 1));
  assert.deepEqual([bytewise.rows, bytewise.pg], [ROWS, 'HcCTDCZ']);
  const whole = await readThrough([]);
  assert.ok(whole.gaps.includes(5), "messages of one row each were read as one string, each row after its message's header");
});

test('without a COPY of ours, pg gets every message, whole, the CopyData ones too', () => {
  let types = '';
  const client = fakeClient((type) => (types += type));
  CopyDataTap.install(client);
  for (let at = 0; at < REPLY.length; at += 7) client.connection.stream.emit('data', Buffer.from(REPLY.subarray(at, at + 7)));
  assert.equal(types, 'HddddddcCTDCZ');
});

test('a client not laid out as expected is left as it is', () => {
  const stream = new EventEmitter();
  stream.on('data', () => {});
  stream.on('data', () => {});
  assert.equal(CopyDataTap.install({ connection: { stream } }), undefined);
  assert.equal(CopyDataTap.install({}), undefined);
});

test('a message of many chunks (a value of megabytes) reaches pg whole and unchanged', () => {
  const bodies: Buffer[] = [];
  const client = fakeClient((type, body) => {
    if (type === 'D') bodies.push(Buffer.from(body));
  });
  CopyDataTap.install(client);
  const big = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
  const bytes = Buffer.concat([message('D', big), message('D', 'after'), message('Z', 'I')]);
  for (let at = 0; at < bytes.length; at += 1000) client.connection.stream.emit('data', Buffer.from(bytes.subarray(at, at + 1000)));
  assert.equal(bodies.length, 2);
  assert.ok(bodies[0]!.equals(big), 'the big message, byte for byte');
  assert.equal(bodies[1]!.toString(), 'after');
});
