import { DataOutput, varUintWidth } from '../serialization/data-output.ts';
import type { SavedValueSink } from '../state/state-table.ts';
import { keyEncodingOfKey, writeKey } from './state-key-encoding.ts';
import type { StateValueCodec } from './state-value-codec.ts';

/** One key group's saved values: whole runs, then the run being filled after a gap for its header. */
interface SavedGroup {
  readonly codec: StateValueCodec;
  readonly out: DataOutput;
  /** Where the open run's header gap starts (headerRoom bytes, filled when the run closes). */
  runAt: number;
  count: number;
  encoding: number;
  /** Entries in whole runs and the open one. */
  entries: number;
}

/** First capacity of a key group's bytes (it doubles as needed). */
const FIRST_CAPACITY = 16 * 1024;
/**
 * Buffers of finished blocks, kept for the next snapshot's key groups: every key group of a
 * busy state fills one at each checkpoint, and growing them each time (allocation, zeroing,
 * copies) cost ~60 ms per checkpoint of 1M entries. At most this many bytes are kept per process.
 */
const SPARE_BYTES = 32 << 20;
const spare: Uint8Array[] = [];
let spareBytes = 0;

function takeBuffer(): DataOutput {
  const buf = spare.pop();
  if (buf === undefined) return DataOutput.growable(FIRST_CAPACITY);
  spareBytes -= buf.length;
  return DataOutput.growableIn(buf);
}

function keepBuffer(buf: Uint8Array): void {
  if (spareBytes + buf.length > SPARE_BYTES) return;
  spare.push(buf);
  spareBytes += buf.length;
}

/**
 * The values one state's copy-on-write snapshot saved while its state file was being written
 * (TableSnapshot.saveTo), encoded as they are saved into one block per key group of the state
 * file's format (keyed-state-file.ts): a run of at most `slice` pairs per key encoding, each
 * block's values by a codec of its own from the block's start, so the block decodes alone.
 *
 * Why: with records changing the state while a snapshot is written, most entries are changed
 * before the writer reaches them. Encoding the saved value there and then costs little (the
 * entry, its value and the record that changes it are in the CPU's cache), the writer then skips
 * the entry, and no saved object lives on until the writer takes it (a copy per changed entry
 * that survived young-generation collections, and a cache miss each when the writer encoded it).
 *
 * A value the codec cannot write is refused (the table keeps it aside, the writer meets it and
 * fails the checkpoint naming it), and so is every value after it: its block ends before it.
 */
export class SavedValueRuns {
  readonly #groups: Array<SavedGroup | undefined>;
  readonly #codec: () => StateValueCodec;
  readonly #slice: number;
  /** Bytes of the largest run header: a count of up to `slice`, and the key encoding. */
  readonly #headerRoom: number;
  #refusing = false;

  /** `codec` makes the codec of a key group's block (one per block for stateful codecs). */
  constructor(keyGroups: number, slice: number, codec: () => StateValueCodec) {
    this.#groups = new Array(keyGroups);
    this.#codec = codec;
    this.#slice = slice;
    this.#headerRoom = varUintWidth(slice) + 1;
  }

  readonly sink: SavedValueSink = (kg, key, value) => {
    if (this.#refusing) return false;
    let g = this.#groups[kg];
    if (g === undefined) {
      const codec = this.#codec();
      codec.startBlock();
      this.#groups[kg] = g = { codec, out: takeBuffer(), runAt: -1, count: 0, encoding: 0, entries: 0 };
    }
    const encoding = keyEncodingOfKey(key);
    if (g.runAt >= 0 && (encoding !== g.encoding || g.count === this.#slice)) this.#closeRun(g);
    const out = g.out;
    if (g.runAt < 0) {
      g.runAt = out.pos;
      out.ensure(this.#headerRoom);
      out.pos += this.#headerRoom;
      g.encoding = encoding;
    }
    const at = out.pos;
    try {
      writeKey(encoding, key, out);
      g.codec.encode(value, out);
    } catch {
      // The codec may have changed its own state for this value: the block ends before it.
      out.pos = at;
      this.#refusing = true;
      return false;
    }
    g.count++;
    g.entries++;
    return true;
  };

  /** Fills the open run's header (count, key encoding), closing the gap the header does not use. */
  #closeRun(g: SavedGroup): void {
    const out = g.out;
    const end = out.pos;
    if (g.count === 0) {
      out.pos = g.runAt;
    } else {
      const header = varUintWidth(g.count) + 1;
      const pairsAt = g.runAt + this.#headerRoom;
      if (header < this.#headerRoom) out.buf.copyWithin(g.runAt + header, pairsAt, end);
      out.pos = g.runAt;
      out.writeVarUint(g.count);
      out.writeByte(g.encoding);
      out.pos = end - (this.#headerRoom - header);
    }
    g.runAt = -1;
    g.count = 0;
  }

  /**
   * Appends key group `kg`'s saved values to `out` as one block (state index, key group, runs,
   * 0) and forgets them; writes nothing when it has none. Returns the entries it wrote.
   */
  writeBlock(kg: number, stateIndex: number, keyGroup: number, out: DataOutput): number {
    const g = this.#groups[kg];
    if (g === undefined) return 0;
    this.#groups[kg] = undefined;
    if (g.runAt >= 0) this.#closeRun(g);
    if (g.entries === 0) {
      keepBuffer(g.out.buf);
      return 0;
    }
    out.writeVarUint(stateIndex);
    out.writeVarUint(keyGroup);
    out.writeRaw(g.out.written());
    out.writeVarUint(0);
    keepBuffer(g.out.buf);
    return g.entries;
  }
}
