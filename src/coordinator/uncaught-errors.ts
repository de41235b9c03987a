import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * In-thread TaskManagers share the process with everything else, so an exception thrown by user
 * code in a timer, or a promise it rejects without handling, would end the process with Node's
 * bare stack trace. While in-thread TaskManagers exist, such errors are routed instead to the
 * TaskManager whose work raised them (its async context, kept by AsyncLocalStorage), which fails
 * its attempt as a crashed worker thread would; errors raised outside any (a bare microtask)
 * go to every one, since any of them may be the cause.
 */
export interface UncaughtErrorOwner {
  onUncaughtError(error: unknown, kind: 'exception' | 'rejection'): void;
}

const scope = new AsyncLocalStorage<UncaughtErrorOwner>();
const owners = new Set<UncaughtErrorOwner>();

function route(error: unknown, kind: 'exception' | 'rejection'): void {
  const owner = scope.getStore();
  if (owner) owner.onUncaughtError(error, kind);
  else for (const o of [...owners]) o.onUncaughtError(error, kind);
}

const onException = (error: unknown) => route(error, 'exception');
const onRejection = (reason: unknown) => route(reason, 'rejection');

/** Runs `fn` (and everything asynchronous it starts) as the owner's work. */
export function runAsOwner<T>(owner: UncaughtErrorOwner, fn: () => T): T {
  return scope.run(owner, fn);
}

export function registerUncaughtErrorOwner(owner: UncaughtErrorOwner): void {
  if (owners.size === 0) {
    process.on('uncaughtException', onException);
    process.on('unhandledRejection', onRejection);
  }
  owners.add(owner);
}

/** With no owner left, Node's own handling (the process ends) applies again. */
export function unregisterUncaughtErrorOwner(owner: UncaughtErrorOwner): void {
  if (!owners.delete(owner) || owners.size > 0) return;
  process.off('uncaughtException', onException);
  process.off('unhandledRejection', onRejection);
}
