import type { Lsn } from './lsn.ts';

/*
 * The messages of the built-in `pgoutput` plugin, protocol version 1 (PostgreSQL docs, "Logical
 * Replication Message Formats"). Column values stay as the server's text output here: turning
 * them into JS values is pg-value-codec.ts's job, shared with the snapshot's SELECT.
 */

/** 'u' in a tuple: a TOASTed value the update did not change, which the WAL does not carry. */
export const UNCHANGED_TOAST: unique symbol = Symbol('unchanged-toast');

/** One column's value in a tuple: text output, SQL NULL, or left out because unchanged. */
export type TupleValue = string | null | typeof UNCHANGED_TOAST;

export interface RelationColumn {
  readonly name: string;
  /** Part of the replica identity (the key, or every column under REPLICA IDENTITY FULL). */
  readonly key: boolean;
  readonly typeOid: number;
  readonly typeMod: number;
}

/** `replicaIdentity`: 'd' default (primary key), 'n' nothing, 'f' full, 'i' an index. */
export type ReplicaIdentity = 'd' | 'n' | 'f' | 'i';

export interface RelationMessage {
  readonly tag: 'relation';
  readonly relationId: number;
  readonly schema: string;
  readonly table: string;
  readonly replicaIdentity: ReplicaIdentity;
  readonly columns: readonly RelationColumn[];
}

export interface BeginMessage {
  readonly tag: 'begin';
  /** The commit's LSN: every change of the transaction is reported under it. */
  readonly finalLsn: Lsn;
  readonly commitTime: number;
  readonly xid: number;
}

export interface CommitMessage {
  readonly tag: 'commit';
  readonly commitLsn: Lsn;
  /** Just past the commit record: where a restart after this transaction begins. */
  readonly endLsn: Lsn;
  readonly commitTime: number;
}

export interface OriginMessage {
  readonly tag: 'origin';
  readonly originLsn: Lsn;
  readonly name: string;
}

export interface TypeMessage {
  readonly tag: 'type';
  readonly typeOid: number;
  readonly schema: string;
  readonly name: string;
}

export interface InsertMessage {
  readonly tag: 'insert';
  readonly relationId: number;
  readonly newTuple: readonly TupleValue[];
}

export interface UpdateMessage {
  readonly tag: 'update';
  readonly relationId: number;
  /** 'K': the old key (it changed), 'O': the whole old row (REPLICA IDENTITY FULL), absent otherwise. */
  readonly oldKind: 'K' | 'O' | null;
  readonly oldTuple: readonly TupleValue[] | null;
  readonly newTuple: readonly TupleValue[];
}

export interface DeleteMessage {
  readonly tag: 'delete';
  readonly relationId: number;
  readonly oldKind: 'K' | 'O';
  readonly oldTuple: readonly TupleValue[];
}

export interface TruncateMessage {
  readonly tag: 'truncate';
  readonly relationIds: readonly number[];
  readonly cascade: boolean;
  readonly restartIdentity: boolean;
}

/** A message written by pg_logical_emit_message, sent only with the `messages` option. */
export interface LogicalMessage {
  readonly tag: 'message';
  readonly transactional: boolean;
  readonly lsn: Lsn;
  readonly prefix: string;
  readonly content: Buffer;
}

export type PgOutputMessage =
  | RelationMessage
  | BeginMessage
  | CommitMessage
  | OriginMessage
  | TypeMessage
  | InsertMessage
  | UpdateMessage
  | DeleteMessage
  | TruncateMessage
  | LogicalMessage;
