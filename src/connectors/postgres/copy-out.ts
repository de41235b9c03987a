/*
 * `COPY (SELECT …) TO STDOUT` read through pg, its rows handed over as the server sends them. By
 * hand because pg has no COPY-out API of its own (pg-copy-streams gives a byte stream to split
 * again), and because pg's path for SELECT results decodes each field into a string through its
 * own parsers and builds row objects at about a fifth of the rate the server sends COPY
 * (`npm run bench -- cdc --dialect postgres`: 'plain SELECTs' against 'plain COPY'). With a
 * CopyDataTap on the connection the CopyData messages do not go through pg at all: a run of them
 * from one socket chunk becomes one string (the server sends a row per message, so their headers
 * are overwritten with NULs and the rows decoded from that string).
 */
import type { CopyDataTap } from './copy-data-tap.ts';
import type { CopyTextRows, TextRows } from './copy-text-rows.ts';

/** What pg hands a submittable: its connection, which writes protocol messages to the socket. */
interface CopyOutWire {
  query(text: string): void;
}

const HEADER = 5;
const NEWLINE = 10;

/**
 * A submittable for pg's `client.query`: sends `text` (a `COPY … TO STDOUT` in text format, maybe
 * followed by other statements in the same simple query) and calls `onRows` with the rows as they
 * come. Rows split over several messages are put together (PostgreSQL sends a row per message, but
 * the protocol does not promise it). `finished` gives the rows of each statement after the COPY.
 */
export function copyOutSubmittable(text: string, onRows: CopyTextRows, tap?: CopyDataTap): { submittable: object; finished: Promise<TextRows[]> } {
  let settle!: { resolve: (results: TextRows[]) => void; reject: (e: unknown) => void };
  const finished = new Promise<TextRows[]>((resolve, reject) => (settle = { resolve, reject }));
  const results: TextRows[] = [];
  let failed: Error | undefined;
  let partial: Buffer | undefined;
  /** Message data in any cut: whole rows go on, the rest waits for the next message. */
  const take = (chunk: Buffer) => {
    const data = partial ? Buffer.concat([partial, chunk]) : chunk;
    partial = undefined;
    const rowsEnd = data.lastIndexOf(NEWLINE) + 1;
    if (rowsEnd > 0) onRows(data.toString('utf8', 0, rowsEnd), 0);
    if (rowsEnd < data.length) partial = Buffer.from(data.subarray(rowsEnd));
  };
  /** Whole CopyData messages straight from the socket's chunk. */
  const takeMessages = (buf: Buffer, start: number, end: number) => {
    let at = start;
    if (!partial) {
      // Messages that each hold one whole row: headers to NULs, then all of them as one string.
      for (let next; at < end; at = next) {
        next = at + 1 + buf.readUInt32BE(at + 1);
        if (next - at <= HEADER || buf[next - 1] !== NEWLINE) break;
        buf[at] = 0;
        buf[at + 1] = 0;
        buf[at + 2] = 0;
        buf[at + 3] = 0;
        buf[at + 4] = 0;
      }
      if (at > start) onRows(buf.toString('utf8', start, at), HEADER);
    }
    for (let next; at < end; at = next) {
      next = at + 1 + buf.readUInt32BE(at + 1);
      take(buf.subarray(at + HEADER, next));
    }
  };
  const guarded =
    <A extends unknown[]>(f: (...a: A) => void) =>
    (...a: A) => {
      if (failed) return;
      try {
        f(...a);
      } catch (e) {
        failed = e as Error; // reported when the server is done with the statement
      }
    };
  const done = () => tap?.close();
  const submittable = {
    submit: (wire: CopyOutWire) => {
      tap?.open(guarded(takeMessages));
      wire.query(text);
    },
    handleCopyOutResponse() {},
    // Without a tap (or for messages pg parsed before it was set).
    handleCopyData: guarded((msg: { chunk: Buffer }) => take(msg.chunk)),
    handleCommandComplete() {},
    handleRowDescription: () => void results.push([]),
    handleDataRow: (msg: { fields: ReadonlyArray<string | null> }) => void results.at(-1)?.push(msg.fields),
    handleEmptyQuery() {},
    // pg forgets the active query when the server reports an error (no ReadyForQuery follows for it).
    handleError: (e: Error) => {
      done();
      settle.reject(e);
    },
    handleReadyForQuery: () => {
      done();
      if (failed) settle.reject(failed);
      else if (partial) settle.reject(new Error(`COPY output ended inside a row: ${text}`));
      else settle.resolve(results);
    },
  };
  return { submittable, finished };
}
