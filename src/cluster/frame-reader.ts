/**
 * The framing of weir's internal TCP connections (RPC and data): each frame is a u32 big-endian
 * length, then that many bytes. A reader is told the largest frame it accepts, so that bytes which
 * are not a weir peer's (a length of gigabytes) are refused instead of buffered.
 */

export const FRAME_HEADER = 4;

/** A frame longer than the reader accepts: the peer is not speaking the protocol. */
export class FrameTooLargeError extends Error {
  readonly length: number;
  readonly max: number;

  constructor(length: number, max: number) {
    super(`a frame of ${length} bytes, more than the ${max} accepted`);
    this.name = 'FrameTooLargeError';
    this.length = length;
    this.max = max;
  }
}

/** The header of one frame of `length` bytes. */
export function frameHeader(length: number): Buffer {
  const h = Buffer.allocUnsafe(FRAME_HEADER);
  h.writeUInt32BE(length, 0);
  return h;
}

/** A frame as one buffer: header and payload. */
export function frame(payload: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(FRAME_HEADER + payload.byteLength);
  b.writeUInt32BE(payload.byteLength, 0);
  b.set(payload, FRAME_HEADER);
  return b;
}

/**
 * Cuts a byte stream into frames. A frame within one chunk is a view of it (no copy); one that
 * spans chunks is copied once into a buffer of its length, filled as the chunks come.
 */
export class FrameReader {
  #max: number;
  readonly #header = Buffer.alloc(FRAME_HEADER);
  #headerFilled = 0;
  /** The frame being gathered across chunks, and how much of it has come. */
  #body: Buffer | undefined;
  #bodyFilled = 0;

  constructor(maxFrame: number) {
    this.#max = maxFrame;
  }

  /** The largest frame accepted from now on (a handshake is small, what follows it may not be). */
  set maxFrame(max: number) {
    this.#max = max;
  }

  /** Takes a chunk and calls `onFrame` for every frame it completes; throws FrameTooLargeError. */
  push(chunk: Buffer, onFrame: (payload: Buffer) => void): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#body) {
        const n = Math.min(chunk.length - at, this.#body.length - this.#bodyFilled);
        chunk.copy(this.#body, this.#bodyFilled, at, at + n);
        this.#bodyFilled += n;
        at += n;
        if (this.#bodyFilled === this.#body.length) {
          const body = this.#body;
          this.#body = undefined;
          onFrame(body);
        }
        continue;
      }
      let length: number;
      if (this.#headerFilled === 0 && chunk.length - at >= FRAME_HEADER) {
        length = chunk.readUInt32BE(at);
        at += FRAME_HEADER;
      } else {
        const n = Math.min(chunk.length - at, FRAME_HEADER - this.#headerFilled);
        chunk.copy(this.#header, this.#headerFilled, at, at + n);
        this.#headerFilled += n;
        at += n;
        if (this.#headerFilled < FRAME_HEADER) return;
        this.#headerFilled = 0;
        length = this.#header.readUInt32BE(0);
      }
      if (length > this.#max) throw new FrameTooLargeError(length, this.#max);
      if (chunk.length - at >= length) {
        onFrame(chunk.subarray(at, at + length));
        at += length;
      } else {
        this.#body = Buffer.allocUnsafe(length);
        this.#bodyFilled = 0;
      }
    }
  }
}
