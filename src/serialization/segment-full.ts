/**
 * Thrown by a bounded DataOutput when a record does not fit the rest of its segment. The caller
 * catches it by identity (`e === SEGMENT_FULL`), rewinds to the record's start and retries in
 * the next segment. It is made once: throwing a preallocated object captures no stack, so a
 * full segment costs a throw, not an Error. Should one escape, its message says what it is.
 */
export class SegmentFullSignal extends Error {
  constructor() {
    super('a record did not fit into its segment and the writer did not handle SEGMENT_FULL (rewind and retry in the next segment)');
    this.name = 'SegmentFullSignal';
  }
}

export const SEGMENT_FULL: SegmentFullSignal = Object.freeze(new SegmentFullSignal());
