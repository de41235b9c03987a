/** Flink's memory units: powers of 1024 (`32kb` is 32768 bytes, as in Flink's MemorySize). */
const UNITS: Record<string, number> = {
  '': 1, b: 1, bytes: 1,
  k: 1024, kb: 1024, kib: 1024, kibibytes: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, mebibytes: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, gibibytes: 1024 ** 3,
};

/** Parses '32kb', '32 KiB', '1 mb', '4096' into bytes; undefined when it is not a memory size. */
export function parseMemorySize(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isInteger(text) && text >= 0 ? text : undefined;
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const factor = UNITS[m[2]!.toLowerCase()];
  return factor === undefined ? undefined : Number(m[1]) * factor;
}

export function formatMemorySize(bytes: number): string {
  for (const [unit, f] of [['gb', 1024 ** 3], ['mb', 1024 ** 2], ['kb', 1024]] as const) if (bytes >= f && bytes % f === 0) return `${bytes / f}${unit}`;
  return `${bytes}b`;
}
