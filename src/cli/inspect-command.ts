import { existsSync } from 'node:fs';
import { keyedBytes } from '../checkpoint/incremental/keyed-state-size.ts';
import { resolve } from 'node:path';
import { readSnapshot } from '../checkpoint/snapshot-reader.ts';
import { describeSnapshot } from '../serialization/incompatible-serializer-error.ts';
import { UsageError } from './run-command.ts';

export interface InspectOptions {
  readonly uid?: string;
  readonly state?: string;
  readonly json?: boolean;
  /** Where the output goes (stdout). */
  readonly write?: (text: string) => void;
}

const jsonValue = (_k: string, v: unknown): unknown => {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Map) return Object.fromEntries(v);
  if (v instanceof Set) return [...v];
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('base64') };
  return v;
};

/**
 * `weir inspect PATH`: a read-only state processor. Lists operators, states with their
 * serializers (kind, version and declared type), key-group ranges, entry counts and sizes; with
 * --uid and --state, dumps the entries as JSON lines.
 */
export async function inspectCommand(path: string, o: InspectOptions): Promise<number> {
  const write = o.write ?? ((text: string) => void process.stdout.write(text));
  // A mistyped path is not a damaged checkpoint: say that nothing is there, not that _metadata is missing.
  if (!existsSync(resolve(path))) {
    throw new UsageError(`${resolve(path)} does not exist: weir inspect reads a savepoint or checkpoint directory (one holding _metadata), its _metadata file, or a nats-obj://<bucket>/<path> location`);
  }
  const snap = await readSnapshot(resolve(path), o.uid !== undefined ? { uid: o.uid } : undefined);
  if (o.uid !== undefined && snap.operators.length === 0) {
    const all = await readSnapshot(resolve(path));
    throw new UsageError(`no operator with uid '${o.uid}' in ${snap.directory}; uids: ${all.operators.map((x) => x.uid).join(', ')}`);
  }
  if (o.state !== undefined) {
    if (o.uid === undefined) throw new UsageError('--state needs --uid');
    const op = snap.operators[0]!;
    const keyed = op.keyed.find((s) => s.name === o.state);
    const listState = op.operator[o.state];
    if (!keyed && !listState) {
      const names = [...op.keyed.map((s) => s.name), ...Object.keys(op.operator)];
      throw new UsageError(`operator '${o.uid}' has no state '${o.state}'; states: ${names.join(', ') || 'none'}`);
    }
    const out: string[] = [];
    if (keyed) {
      for (const kg of [...keyed.entries.keys()].sort((a, b) => a - b)) {
        for (const [key, value] of keyed.entries.get(kg)!) out.push(JSON.stringify({ key, value, keyGroup: kg }, jsonValue));
      }
    } else {
      listState!.values.forEach((value, index) => out.push(JSON.stringify({ index, value }, jsonValue)));
    }
    if (out.length > 0) write(out.join('\n') + '\n');
    return 0;
  }
  const m = snap.metadata;
  const summary = {
    path: snap.directory,
    type: m.type,
    jobId: m.jobId,
    checkpointId: m.checkpointId,
    formatVersion: m.formatVersion,
    unaligned: m.unaligned,
    completedAt: new Date(m.completedAt).toISOString(),
    operators: snap.operators.map((op) => {
      const meta = m.operators.find((x) => x.uid === op.uid)!;
      return {
        uid: op.uid,
        name: op.name,
        parallelism: op.parallelism,
        maxParallelism: op.maxParallelism,
        subtasks: meta.subtasks.map((s) => ({
          subtask: s.subtask,
          keyGroups: s.keyed && s.keyed.keyGroups.length > 0 ? `${s.keyed.keyGroups[0]!.keyGroup}..${s.keyed.keyGroups.at(-1)!.keyGroup}` : null,
          // An incremental handle: its base's entries; the bytes of every file a restore reads.
          entries: s.keyed?.entries ?? 0,
          bytes: keyedBytes(s.keyed),
          ...(s.keyed ? { stateFileFormat: s.keyed.format ?? 1 } : {}),
          ...(s.keyed?.deltas ? { incremental: { base: s.keyed.file, deltas: s.keyed.deltas.map((d) => d.file) } } : {}),
        })),
        keyedStates: op.keyed.map((s) => ({
          name: s.name,
          kind: s.kind,
          serializer: `${s.serializer}@${s.version}`,
          // What wrote it: kind, version and schema (the declared type; `any` for msgpack and custom ones).
          serializerSnapshot: s.snapshot,
          description: describeSnapshot(s.snapshot),
          entries: [...s.entries.values()].reduce((n, e) => n + e.length, 0),
          keyGroups: s.entries.size,
        })),
        operatorStates: Object.entries(op.operator).map(([name, e]) => ({
          name,
          mode: e.mode,
          entries: e.values.length,
          ...(e.serializer ? { serializerSnapshot: e.serializer, description: describeSnapshot(e.serializer) } : {}),
        })),
        // A source's split enumerator state, as its source stored it (e.g. a CDC snapshot's progress).
        ...(m.coordinators?.[op.uid] !== undefined ? { enumerator: m.coordinators[op.uid] } : {}),
      };
    }),
  };
  if (o.json) {
    write(JSON.stringify(summary, jsonValue) + '\n');
    return 0;
  }
  const lines = [
    `${m.type} ${m.checkpointId} of job ${m.jobId} (format v${m.formatVersion}${m.unaligned ? ', unaligned' : ''}), completed ${summary.completedAt}`,
    `  ${snap.directory}`,
  ];
  for (const op of summary.operators) {
    lines.push('', `operator '${op.name}'  uid ${op.uid}  parallelism ${op.parallelism}  maxParallelism ${op.maxParallelism}`);
    for (const s of op.keyedStates) lines.push(`  keyed state '${s.name}' (${s.kind}, ${s.description}): ${s.entries.toLocaleString('en-US')} entries in ${s.keyGroups} key groups`);
    for (const s of op.operatorStates) lines.push(`  operator state '${s.name}' (${s.mode}${'description' in s ? `, ${s.description}` : ''}): ${s.entries} entries`);
    if ('enumerator' in op) lines.push(`  split enumerator state: ${describeEnumerator(op.enumerator)}`);
    for (const s of op.subtasks) if (s.keyGroups) lines.push(`    subtask ${s.subtask}: key groups ${s.keyGroups}, ${s.entries.toLocaleString('en-US')} entries, ${s.bytes.toLocaleString('en-US')} bytes (state file format ${s.stateFileFormat})`);
  }
  write(lines.join('\n') + '\n');
  return 0;
}

/** One line for an enumerator's state: its phase and counts when it has them, else its size. */
function describeEnumerator(state: unknown): string {
  if (state === null || typeof state !== 'object') return String(state);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(state)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') parts.push(`${k} ${v}`);
    else if (Array.isArray(v)) parts.push(`${k} [${v.length}]`);
  }
  return parts.join(', ');
}
