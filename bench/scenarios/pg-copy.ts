// A plain `COPY … FROM STDIN` through a pg client, without pg-copy-streams: a Submittable that pg
// hands the connection to, which sends the rows as CopyData and ends the copy (what pg-copy-streams
// does under its stream API). The baseline of the sinks scenario.
import pg from 'pg';

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** Sends `text` (a COPY FROM STDIN) with `chunks` as its data; resolves when the server is ready again. */
export function copyFrom(client: pg.Client, text: string, chunks: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const submittable = {
      submit(connection: CopyConnection) {
        connection.query(text);
      },
      handleCopyInResponse(connection: CopyConnection) {
        for (const c of chunks) connection.sendCopyFromChunk(c);
        connection.endCopyFrom();
      },
      handleCommandComplete() {},
      // pg forgets the active query when the server reports an error (no ReadyForQuery follows for it).
      handleError: (e: Error) => reject(e),
      handleReadyForQuery: () => resolve(),
    };
    client.query(submittable as unknown as pg.QueryConfig);
  });
}
