/**
 * One side of the wake-up protocol of the rings and doorbells: says it waits (`flag`), then looks
 * once more at the word it waits on (`index`). The other side first changes the word, then looks
 * at the flag; every access is an Atomics operation (sequentially consistent), so at least one of
 * them sees the other's write, and no wake-up is lost. Undefined when the word moved from `seen`
 * already, or `closed` (an index) is set: the caller looks again at once.
 */
export function waitUnlessChanged(cells: Int32Array, index: number, flag: number, seen: number, closed?: number): Promise<unknown> | undefined {
  Atomics.store(cells, flag, 1);
  if (Atomics.load(cells, index) !== seen || (closed !== undefined && Atomics.load(cells, closed) !== 0)) {
    Atomics.store(cells, flag, 0);
    return undefined;
  }
  // A pending waitAsync does not keep the event loop alive: a worker thread is kept alive by its
  // port to the JobMaster, which is open for as long as the thread has tasks.
  const r = Atomics.waitAsync(cells, index, seen);
  return r.async ? r.value : undefined;
}
