import { UnknownMessageError } from './unknown-message-error.ts';

/**
 * The messages a gateway's calls become, one kind per method: its `type` is the method's name,
 * its other fields are the method's one payload (so no payload has a field named `type`). Every
 * control-plane union is derived this way, so a method and its message cannot disagree.
 */
export type MessagesOf<G> = {
  [K in keyof G & string]: G[K] extends (payload: infer P) => void ? { readonly type: K } & P : never;
}[keyof G & string];

/**
 * Every method of a gateway, named once: the compiler holds the table to the interface (a method
 * missing or one too many is an error), and it is what the proxy is built from and what a
 * received message is checked against. A table rather than a JavaScript Proxy, which would also
 * answer `then` and so make an awaited gateway look like a promise.
 */
export type GatewayMethods<G> = Record<keyof G, true>;

/** The payload of a method that needs none. */
export type NoPayload = Readonly<Record<never, never>>;

/**
 * A gateway whose calls are sent as messages, one way: `send` is the transport (a microtask queue,
 * a worker thread's port, a socket).
 */
export function gatewayProxy<G>(methods: GatewayMethods<G>, send: (message: MessagesOf<G>) => void): G {
  const gateway: Record<string, (payload: object) => void> = {};
  for (const type of Object.keys(methods)) gateway[type] = (payload) => send({ ...payload, type } as MessagesOf<G>);
  return Object.freeze(gateway) as G;
}

/**
 * Calls the method a received message names on `target`, with the message as its payload. Only
 * the gateway's own methods are reached (the class behind `target` may have others); any other
 * type throws UnknownMessageError.
 */
export function dispatchMessage<G>(methods: GatewayMethods<G>, target: G, message: MessagesOf<G>): void {
  const type: unknown = (message as { readonly type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !Object.hasOwn(methods, type)) throw new UnknownMessageError(type);
  (target as Record<string, (payload: unknown) => void>)[type]!(message);
}
