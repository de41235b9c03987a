import { EventEmitter } from 'node:events';

/** The parts of mysql2's connection and packet that a command uses (not in its typings). */
export interface Mysql2Packet {
  readonly buffer: Buffer;
  readonly offset: number;
  readonly end: number;
  isError(): boolean;
  isEOF(): boolean;
  asError(encoding?: string): Error & { errno?: number; code?: string; sqlState?: string };
}

export interface Mysql2Internals {
  addCommand(cmd: unknown): unknown;
  pause(): void;
  resume(): void;
  _resetSequenceId(): void;
  writePacket(packet: { buffer: Buffer; length(): number; writeHeader(sequenceId: number): void }): void;
  readonly clientEncoding: string;
}

export interface BinlogDumpHandlers {
  /** A binlog event's bytes (header, body, checksum), without the packet's leading OK byte. */
  event(raw: Buffer): void;
  /** The dump is over: the server's error, or its EOF (a non-blocking dump at the log's end). */
  end(error: (Error & { errno?: number; code?: string; sqlState?: string }) | undefined): void;
}

/**
 * A mysql2 command that sends COM_BINLOG_DUMP (or _GTID) and then hands over every packet the
 * server streams back. mysql2 runs any object with execute(packet, connection) as a command: it
 * is called first without a packet, then once per packet while it returns false.
 */
export class BinlogDumpCommand extends EventEmitter {
  readonly #payload: Buffer;
  readonly #on: BinlogDumpHandlers;
  #started = false;

  constructor(payload: Buffer, on: BinlogDumpHandlers) {
    super();
    this.#payload = payload;
    this.#on = on;
  }

  execute(packet: Mysql2Packet | undefined, connection: Mysql2Internals): boolean {
    if (!this.#started) {
      this.#started = true;
      connection._resetSequenceId();
      connection.writePacket(framed(this.#payload));
      return false;
    }
    if (!packet) return false;
    if (packet.isError()) {
      this.#on.end(packet.asError(connection.clientEncoding));
      return true;
    }
    if (packet.isEOF()) {
      this.#on.end(undefined);
      return true;
    }
    this.#on.event(packet.buffer.subarray(packet.offset + 1, packet.end));
    return false;
  }
}

/** What writePacket needs: the payload behind 4 bytes that it fills with length and sequence id. */
function framed(payload: Buffer): { buffer: Buffer; length(): number; writeHeader(sequenceId: number): void } {
  const buffer = Buffer.alloc(4 + payload.length);
  payload.copy(buffer, 4);
  return {
    buffer,
    length: () => buffer.length,
    writeHeader(sequenceId) {
      buffer.writeUIntLE(payload.length, 0, 3);
      buffer[3] = sequenceId;
    },
  };
}
