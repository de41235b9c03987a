/*
 * `COPY (SELECT …) TO STDOUT` read through pg, its rows handed over one by one as the server sends
 * them. By hand because pg has no COPY-out API of its own (pg-copy-streams gives a byte stream to
 * split again), and because pg's path for SELECT results decodes each field into a string through
 * its own parsers and builds row objects at about a fifth of the rate the server sends COPY
 * (`npm run bench -- cdc --dialect postgres`: 'plain SELECTs' against 'plain COPY').
 */

/** What pg hands a submittable: its connection, which writes protocol messages to the socket. */
interface CopyOutWire {
  query(text: string): void;
}

/**
 * A submittable for pg's `client.query`: sends `text` (a `COPY … TO STDOUT` in text format) and
 * calls `onRow` with each row's text, without its newline. The server sends one CopyData message
 * per row; rows split over several messages are put together anyway.
 */
export function copyOutSubmittable(text: string, onRow: (row: string) => void): { submittable: object; finished: Promise<void> } {
  let settle!: { resolve: () => void; reject: (e: unknown) => void };
  const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  let failed: Error | undefined;
  let partial: Buffer | undefined;
  const take = (chunk: Buffer) => {
    let data = partial ? Buffer.concat([partial, chunk]) : chunk;
    partial = undefined;
    let start = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      onRow(data.toString('utf8', start, nl));
      start = nl + 1;
    }
    if (start < data.length) partial = Buffer.from(data.subarray(start));
  };
  const submittable = {
    submit: (wire: CopyOutWire) => wire.query(text),
    handleCopyOutResponse() {},
    handleCopyData: (msg: { chunk: Buffer }) => {
      if (failed) return;
      try {
        take(msg.chunk);
      } catch (e) {
        failed = e as Error; // reported when the server is done with the statement
      }
    },
    handleCommandComplete() {},
    handleRowDescription() {},
    handleDataRow() {},
    handleEmptyQuery() {},
    // pg forgets the active query when the server reports an error (no ReadyForQuery follows for it).
    handleError: (e: Error) => settle.reject(e),
    handleReadyForQuery: () => (failed ? settle.reject(failed) : partial ? settle.reject(new Error(`COPY output ended inside a row: ${text}`)) : settle.resolve()),
  };
  return { submittable, finished };
}
