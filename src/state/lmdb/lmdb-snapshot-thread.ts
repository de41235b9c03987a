// Entry of an lmdb snapshot thread (lmdb-snapshot-writer.ts starts one per thread that runs lmdb
// keyed state): it writes full snapshots of the stores, each from a read transaction it opened
// while the asking task thread waited, so the task thread goes on processing records; and the
// deltas of incremental checkpoints, from the changed keys it is sent.
import { parentPort } from 'node:worker_threads';
import type { Database, RootDatabase, Transaction } from 'lmdb';
import { writeKeyedStateFile } from '../../checkpoint/keyed-state-file.ts';
import type { StateDescriptor } from '../../api/state-descriptors.ts';
import type { CapturedKeyedState } from '../captured-state.ts';
import type { KeyedStateHandle } from '../../checkpoint/state-handles.ts';
import { passthroughSerializer } from '../passthrough-serializer.ts';
import { lmdbNative } from './lmdb-native.ts';
import type { FromSnapshotThread, ToSnapshotThread } from './lmdb-snapshot-protocol.ts';
import { LMDB_STORE_OPTIONS } from './lmdb-store-options.ts';
import { lmdbTableSnapshot } from './lmdb-table-snapshot.ts';
import { lmdbDeltaTables } from './lmdb-delta-tables.ts';
import { encodeStateKey } from './state-key-bytes.ts';
import { DirtyKeys } from '../incremental/dirty-keys.ts';
import type { Key } from '../key-group.ts';
import { storedValueBytes } from './state-value-bytes.ts';

interface Store {
  readonly db: RootDatabase<Buffer, Buffer>;
  tickets: number;
}

interface Ticket {
  readonly path: string;
  readonly transaction: Transaction;
  readonly controller: AbortController;
  writing: Promise<unknown> | undefined;
}

const port = parentPort!;
/** Stores stay open while a ticket reads them: opening one again costs a millisecond, a fresh read transaction microseconds. */
const stores = new Map<string, Store>();
const tickets = new Map<number, Ticket>();

const send = (m: FromSnapshotThread) => port.postMessage(m);

port.on('message', (m: ToSnapshotThread) => {
  switch (m.type) {
    case 'open':
      return open(m.ticket, m.path, m.flag);
    case 'write':
      return write(m);
    case 'abort':
      return tickets.get(m.ticket)?.controller.abort(new Error(m.reason));
    case 'release':
      return void release(m.ticket);
  }
});
send({ type: 'ready' });

function open(ticket: number, path: string, flag: Int32Array): void {
  let answer = -ticket;
  try {
    let store = stores.get(path);
    if (store === undefined) stores.set(path, (store = { db: lmdbNative().open<Buffer, Buffer>({ path, ...LMDB_STORE_OPTIONS }), tickets: 0 }));
    // lmdb-js hands out its current read transaction, which may be one opened before the task
    // thread's last commit (this thread never writes, so nothing here renews it): a fresh one.
    store.db.resetReadTxn();
    const transaction = store.db.useReadTransaction();
    store.tickets++;
    tickets.set(ticket, { path, transaction, controller: new AbortController(), writing: undefined });
    answer = ticket;
  } catch {
    // The asking thread writes this snapshot itself.
  }
  Atomics.store(flag, 0, answer);
  Atomics.notify(flag, 0);
}

const failed = (ticket: number, e: Error & { code?: string }) =>
  send({ type: 'failed', ticket, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e), ...(typeof e?.code === 'string' ? { code: e.code } : {}) } });

function write(m: Extract<ToSnapshotThread, { type: 'write' }>): void {
  const t = tickets.get(m.ticket);
  if (t === undefined) return failed(m.ticket, new Error(`snapshot ticket ${m.ticket} is not open`));
  // A failure fails this write only: the thread goes on serving the others.
  try {
    t.writing = writeFile(t, m).then((handle) => send({ type: 'written', ticket: m.ticket, handle }), (e) => failed(m.ticket, e));
  } catch (e) {
    failed(m.ticket, e as Error);
  }
}

function writeFile(t: Ticket, m: Extract<ToSnapshotThread, { type: 'write' }>): Promise<KeyedStateHandle> {
  const db = stores.get(t.path)!.db as unknown as Database<Buffer, Buffer>;
  // The states as a restore that no operator has claimed yet holds them: their stored bytes read
  // with the stored serializer, so this thread needs none of the job's code (the file is the one
  // the task thread would write: a custom serializer's bytes go in as they are stored).
  const states = m.states.map((s) => ({
    id: s.id,
    descriptor: { kind: s.info.kind, name: s.info.name, serializer: passthroughSerializer(s.info) } as unknown as StateDescriptor,
    decodeStored: storedValueBytes(s.info).decodeStored,
  }));
  const tables =
    m.changed === undefined
      ? states.map((s) => ({ descriptor: s.descriptor, snapshot: lmdbTableSnapshot(db, t.transaction, m.keyGroupRange, s.id, s.decodeStored, () => {}) }))
      : lmdbDeltaTables(
          db,
          t.transaction,
          m.keyGroupRange,
          // The task thread wrote every change to the store before this transaction opened: nothing is cached apart.
          states.map((s) => ({ descriptor: s.descriptor, keyBytes: (kg: number, key: Key) => encodeStateKey(kg, s.id, key), decodeStored: s.decodeStored, cached: new Map() })),
          DirtyKeys.fromEntries(m.changed),
          () => {},
        );
  const captured: CapturedKeyedState = { uid: m.uid, keyGroupRange: m.keyGroupRange, maxParallelism: m.maxParallelism, tables };
  return writeKeyedStateFile(m.file, captured, t.controller.signal);
}

async function release(ticket: number): Promise<void> {
  const t = tickets.get(ticket);
  if (t !== undefined) {
    tickets.delete(ticket);
    t.controller.abort(new Error('the snapshot was released'));
    await t.writing;
    t.transaction.done();
    const store = stores.get(t.path)!;
    if (--store.tickets === 0) {
      stores.delete(t.path);
      await store.db.close();
    }
  }
  send({ type: 'released', ticket });
}
