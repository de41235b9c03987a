import type { Clock, Timer } from './clock.ts';

/** `promise`'s outcome, or a rejection with `message()` once `ms` have passed on `clock` (whichever comes first). */
export async function within<T>(clock: Clock, ms: number, promise: Promise<T>, message: () => string): Promise<T> {
  let timer: Timer | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = clock.schedule(() => reject(new Error(message())), ms)))]);
  } finally {
    timer?.cancel();
  }
}
