import { pgMicrosToUnixMs } from './replication-message.ts';
import {
  UNCHANGED_TOAST,
  type PgOutputMessage,
  type RelationColumn,
  type ReplicaIdentity,
  type TupleValue,
} from './pgoutput-message.ts';

/** A pgoutput message this decoder cannot read: a newer protocol, or a corrupt stream. */
export class PgOutputFormatError extends Error {
  readonly tag: string;
  constructor(tag: string, problem: string) {
    super(`pgoutput message '${tag}': ${problem}`);
    this.name = 'PgOutputFormatError';
    this.tag = tag;
  }
}

/** Decodes one pgoutput message (the payload of an XLogData). */
export function decodePgOutput(data: Buffer): PgOutputMessage {
  const r = new Reader(data);
  const tag = String.fromCharCode(r.u8());
  switch (tag) {
    case 'B':
      return { tag: 'begin', finalLsn: r.u64(), commitTime: pgMicrosToUnixMs(r.i64()), xid: r.u32() };
    case 'C': {
      r.u8(); // flags, unused
      return { tag: 'commit', commitLsn: r.u64(), endLsn: r.u64(), commitTime: pgMicrosToUnixMs(r.i64()) };
    }
    case 'O':
      return { tag: 'origin', originLsn: r.u64(), name: r.cstring() };
    case 'R':
      return relation(r);
    case 'Y':
      return { tag: 'type', typeOid: r.u32(), schema: r.cstring() || 'pg_catalog', name: r.cstring() };
    case 'I': {
      const relationId = r.u32();
      expect(r, 'I', 'N');
      return { tag: 'insert', relationId, newTuple: tuple(r) };
    }
    case 'U': {
      const relationId = r.u32();
      const marker = String.fromCharCode(r.u8());
      if (marker === 'N') return { tag: 'update', relationId, oldKind: null, oldTuple: null, newTuple: tuple(r) };
      if (marker !== 'K' && marker !== 'O') throw new PgOutputFormatError('U', `expected 'K', 'O' or 'N', got '${marker}'`);
      const oldTuple = tuple(r);
      expect(r, 'U', 'N');
      return { tag: 'update', relationId, oldKind: marker, oldTuple, newTuple: tuple(r) };
    }
    case 'D': {
      const relationId = r.u32();
      const marker = String.fromCharCode(r.u8());
      if (marker !== 'K' && marker !== 'O') throw new PgOutputFormatError('D', `expected 'K' or 'O', got '${marker}'`);
      return { tag: 'delete', relationId, oldKind: marker, oldTuple: tuple(r) };
    }
    case 'T': {
      const n = r.u32();
      const options = r.u8();
      const relationIds: number[] = [];
      for (let i = 0; i < n; i++) relationIds.push(r.u32());
      return { tag: 'truncate', relationIds, cascade: (options & 1) !== 0, restartIdentity: (options & 2) !== 0 };
    }
    case 'M': {
      const transactional = r.u8() === 1;
      const lsn = r.u64();
      const prefix = r.cstring();
      const content = r.bytes(r.u32());
      return { tag: 'message', transactional, lsn, prefix, content };
    }
    default:
      throw new PgOutputFormatError(tag, 'unknown message type (only protocol version 1 is read)');
  }
}

function relation(r: Reader): PgOutputMessage {
  const relationId = r.u32();
  const schema = r.cstring() || 'pg_catalog';
  const table = r.cstring();
  const replicaIdentity = String.fromCharCode(r.u8()) as ReplicaIdentity;
  const n = r.u16();
  const columns: RelationColumn[] = [];
  for (let i = 0; i < n; i++) {
    const key = (r.u8() & 1) !== 0;
    columns.push({ key, name: r.cstring(), typeOid: r.u32(), typeMod: r.i32() });
  }
  return { tag: 'relation', relationId, schema, table, replicaIdentity, columns };
}

function tuple(r: Reader): TupleValue[] {
  const n = r.u16();
  const values: TupleValue[] = [];
  for (let i = 0; i < n; i++) {
    const kind = String.fromCharCode(r.u8());
    if (kind === 'n') values.push(null);
    else if (kind === 'u') values.push(UNCHANGED_TOAST);
    else if (kind === 't') values.push(r.bytes(r.u32()).toString('utf8'));
    else throw new PgOutputFormatError('tuple', `column ${i + 1} has kind '${kind}'; only text ('t'), null ('n') and unchanged ('u') are read (binary mode is off)`);
  }
  return values;
}

function expect(r: Reader, tag: string, marker: string): void {
  const got = String.fromCharCode(r.u8());
  if (got !== marker) throw new PgOutputFormatError(tag, `expected '${marker}', got '${got}'`);
}

class Reader {
  #pos = 0;
  constructor(private readonly b: Buffer) {}
  #need(n: number): number {
    const at = this.#pos;
    if (at + n > this.b.length) throw new PgOutputFormatError(String.fromCharCode(this.b[0] ?? 0), `truncated: needs ${at + n} bytes, has ${this.b.length}`);
    this.#pos += n;
    return at;
  }
  u8(): number {
    return this.b[this.#need(1)]!;
  }
  u16(): number {
    return this.b.readUInt16BE(this.#need(2));
  }
  u32(): number {
    return this.b.readUInt32BE(this.#need(4));
  }
  i32(): number {
    return this.b.readInt32BE(this.#need(4));
  }
  u64(): bigint {
    return this.b.readBigUInt64BE(this.#need(8));
  }
  i64(): bigint {
    return this.b.readBigInt64BE(this.#need(8));
  }
  bytes(n: number): Buffer {
    const at = this.#need(n);
    return this.b.subarray(at, at + n);
  }
  cstring(): string {
    const end = this.b.indexOf(0, this.#pos);
    if (end < 0) throw new PgOutputFormatError(String.fromCharCode(this.b[0] ?? 0), 'unterminated string');
    const s = this.b.toString('utf8', this.#pos, end);
    this.#pos = end + 1;
    return s;
  }
}
