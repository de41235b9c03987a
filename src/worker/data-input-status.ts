/**
 * What a task's input says after one step of it (Flink's DataInputStatus): there is more to take
 * now, nothing until the input wakes the task again, or the input has just ended.
 */
export type DataInputStatus = 'more-available' | 'nothing-available' | 'end-of-input';
