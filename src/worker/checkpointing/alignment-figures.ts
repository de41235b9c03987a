/** What a task reports about how long and how much a checkpoint's barriers made it wait. */
export interface AlignmentFigures {
  readonly alignmentMs: number;
  readonly startDelayMs: number;
  /** Bytes of records taken from not-yet-aligned channels while aligning. */
  readonly processedBytes: number;
}
