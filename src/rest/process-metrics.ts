import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * The Node process's own figures (heap, event-loop delay, GC, CPU, handles, file descriptors)
 * under prom-client's names. Collected once per process and shared by every REST server in it:
 * collectDefaultMetrics starts an event-loop delay monitor and a GC observer that are never
 * stopped, so one per server (several run in one test process) would pile up.
 */
export function processMetrics(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
