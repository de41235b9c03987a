/**
 * The frames of a data connection between two TaskManager processes (after its handshake), one
 * connection per pair carrying all their channels: u8 kind, u32 BE channel number, then the body.
 * Channel numbers are chosen by the side that opens the channel (the sender of its records), so
 * each kind says whose number it carries:
 *
 *   sender -> receiver   OPEN key (utf8) · DATA segment · FORCED segment (sent without credit,
 *                        ahead of a priority event it must precede) · PRIORITY event · CLOSE
 *   receiver -> sender   CREDIT u32 segments freed · GONE (the receiving end is closed) ·
 *                        BUDGET u32 segments, u32 fill bytes (the consumer's debloated budget)
 */
export const DataFrame = {
  OPEN: 1,
  DATA: 2,
  FORCED: 3,
  PRIORITY: 4,
  CLOSE: 5,
  CREDIT: 6,
  GONE: 7,
  BUDGET: 8,
} as const;

export type DataFrameKind = (typeof DataFrame)[keyof typeof DataFrame];

export const DATA_FRAME_HEADER = 5;

export function dataHeader(kind: DataFrameKind, channel: number): Buffer {
  const h = Buffer.allocUnsafe(DATA_FRAME_HEADER);
  h[0] = kind;
  h.writeUInt32BE(channel, 1);
  return h;
}

/** Where one channel's frames go: the connection, with the channel's number filled in. */
export interface SegmentLink {
  /** A segment's bytes (copied before this returns: the ring may reuse them at once). */
  segment(bytes: Uint8Array, forced: boolean): void;
  priority(bytes: Uint8Array): void;
  /** Everything is sent and the ring is closed. */
  close(): void;
}

/** The receiving end's way back: credits for freed segments, and the consumer's debloated budget. */
export interface CreditLink {
  credit(segments: number): void;
  gone(): void;
  /** Buffer debloating: the producer keeps at most `segments` unsent, each published at `fillBytes`. */
  budget(segments: number, fillBytes: number): void;
}
