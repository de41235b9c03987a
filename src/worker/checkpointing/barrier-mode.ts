/** How a task treats barriers: exactly-once aligns them, at-least-once only counts them. */
export type BarrierMode = 'aligned' | 'at-least-once';
