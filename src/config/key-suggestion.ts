import { editDistance } from './edit-distance.ts';

/** A known key, and Flink's former names of it. */
export interface KnownKey {
  readonly key: string;
  readonly deprecatedKeys: readonly string[];
}

/**
 * The hint an unknown-key error ends with: ` (did you mean …?)`, or '' when nothing is close.
 * Flink's former name of a key points to the key; then the nearest key by edit distance, within
 * a quarter of the length (a typo, not another word); then keys that end with or contain its last
 * segment (`interval`, `x.port`).
 */
export function suggestKey(unknown: string, known: readonly KnownKey[]): string {
  const renamed = known.find((k) => k.deprecatedKeys.includes(unknown));
  if (renamed) return ` (did you mean ${renamed.key}? ${unknown} is Flink's former name of it)`;
  const typo = nearest(unknown, known);
  if (typo) return ` (did you mean ${typo}?)`;
  const tail = unknown.split('.').pop() ?? unknown;
  const near = known.map((k) => k.key).filter((k) => k.endsWith(tail) || k.includes(tail));
  return near.length > 0 ? ` (did you mean ${near.slice(0, 3).join(', ')}?)` : '';
}

function nearest(unknown: string, known: readonly KnownKey[]): string | undefined {
  const limit = Math.max(1, Math.floor(unknown.length / 4));
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    for (const name of [k.key, ...k.deprecatedKeys]) {
      const distance = editDistance(unknown, name);
      if (distance <= limit && (!best || distance < best.distance)) best = { key: k.key, distance };
    }
  }
  return best?.key;
}
