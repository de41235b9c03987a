/** Input channel state of an unaligned checkpoint: per gate channel, the records its barrier overtook. */
export interface InFlightInput {
  readonly buffers: ReadonlyArray<unknown[][]>;
  /** Resolves with the alignment duration when every channel's barrier has arrived. */
  readonly complete: Promise<number>;
}
