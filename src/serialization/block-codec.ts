import { BooleanColumn, NumberColumn, RowColumn, StringColumn, type BlockColumn } from './block-columns.ts';
import { codecRuntime } from './codec-runtime.ts';
import { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import { decoderSource } from './decoder-source.ts';
import { describeType } from './describe-type.ts';
import { encoderSource, isPlainLeaf, plainLeafSource } from './encoder-source.ts';
import { PathExpression } from './path-expression.ts';
import { SourceContext } from './source-context.ts';
import type { StructField, TypeInfo } from './type-info.ts';

/**
 * The records of a declared struct type laid out by column, a run of them at a time (a segment's
 * worth): every field's values together, numbers at a fixed width, strings' lengths apart from
 * their bytes. The reader then takes each field in a tight loop over one column instead of
 * walking every record's varints and length prefixes, and the writer puts numbers at a fixed
 * width instead of making varints of them (MIN_FIELDS has the figures).
 *
 * A block's body, after its header (channel-frames.ts), is the columns in field order:
 *   int, timestamp   u8 width 4 | 8, then n values as i32 LE or f64 LE
 *   double           u8 8, then n f64 LE
 *   boolean          n bytes 0 | 1
 *   string           u8 width 1 | 2 | 4, u32 LE total bytes, n byte lengths at that width, the bytes
 *   anything else    u32 LE byte count, then n values as the field's own codec writes them
 * Values are checked as the row codec checks them, with the same errors (path, expected, actual).
 */
export interface BlockCodec {
  readonly type: TypeInfo;
  /** A writer of blocks, one per channel (it keeps the columns of the block being filled). */
  writer(): BlockWriter;
  /** The block's `n` records from `inp` (at its first column) pushed onto `out`; leaves `inp` after the block. */
  decode(inp: DataInput, n: number, out: unknown[]): void;
}

/** The block being filled: records go in one at a time, and its exact size is known after each. */
export class BlockWriter {
  readonly #columns: readonly BlockColumn[];
  readonly #add: (value: unknown, n: number) => number;
  count = 0;

  /** `add` is generated for the type: it checks and adds a record and returns the columns' size with it. */
  constructor(columns: readonly BlockColumn[], add: (value: unknown, n: number) => number) {
    this.#columns = columns;
    this.#add = add;
  }

  /**
   * Adds a record and returns the columns' bytes with it; a value that does not fit the type
   * throws SerializationError and adds nothing.
   */
  add(value: unknown): number {
    let size: number;
    try {
      size = this.#add(value, this.count);
    } catch (e) {
      this.#truncate(this.count);
      throw e;
    }
    this.count++;
    return size;
  }

  /** Takes the last record back (it made the block too large for its segment). */
  undo(): void {
    this.#truncate(--this.count);
  }

  /** The columns' bytes with the records added so far. */
  size(): number {
    const n = this.count;
    let size = 0;
    for (const c of this.#columns) size += c.size(n);
    return size;
  }

  /** Writes the columns (the caller made room for size()) and starts an empty block. */
  writeTo(out: DataOutput): void {
    for (const c of this.#columns) c.writeTo(out, this.count);
    this.count = 0;
  }

  #truncate(n: number): void {
    for (const c of this.#columns) c.truncate(n);
  }
}

/**
 * Blocks pay from three fields on. Measured per record, encode and decode in one thread (Node 20,
 * this machine, against rows of the same codec): {word, count} 34 / 29 ns against 23 / 32 (a
 * short string and a small varint are quick to walk, and the columns' bookkeeping costs more);
 * three ints 19 / 18 against 29 / 32; {int, string, int, int} 55 / 41 against 67 / 74; a Nexmark
 * bid (7 fields) 307 / 220 against 357 / 278.
 */
const MIN_FIELDS = 3;

const cache = new Map<string, BlockCodec | null>();

/**
 * The block codec of a declared struct type, or undefined when blocks would not pay: not a
 * struct, fewer than MIN_FIELDS fields, or no field that is a plain leaf, the kinds with a column
 * of their own (every field read as in a row anyway).
 */
export function blockCodecFor(type: TypeInfo): BlockCodec | undefined {
  const key = JSON.stringify(type);
  let codec = cache.get(key);
  if (codec === undefined) {
    codec = type.kind === 'struct' && type.fields.length >= MIN_FIELDS && type.fields.some((f) => isPlainLeaf(f.type.kind)) ? build(type, type.fields) : null;
    cache.set(key, codec);
  }
  return codec ?? undefined;
}

function build(type: TypeInfo, fields: readonly StructField[]): BlockCodec {
  const makeAdd = new Function('R', 'cols', addSource(type, fields)) as (r: typeof codecRuntime, cols: readonly BlockColumn[]) => (value: unknown, n: number) => number;
  const decode = new Function('R', 'DataInput', decodeSource(fields))(codecRuntime, DataInput) as BlockCodec['decode'];
  return {
    type,
    writer: () => {
      const columns = fields.map((f) => newColumn(f.type));
      return new BlockWriter(columns, makeAdd(codecRuntime, columns));
    },
    decode,
  };
}

function newColumn(type: TypeInfo): BlockColumn {
  switch (type.kind) {
    case 'int':
    case 'timestamp':
      return new NumberColumn(false);
    case 'double':
      return new NumberColumn(true);
    case 'boolean':
      return new BooleanColumn();
    case 'string':
      return new StringColumn();
    default:
      return new RowColumn();
  }
}

/**
 * `function add(value, n)`: the struct and each field checked, each value into its column (c0,
 * c1, ...), and the columns' size returned (each column's own call site: no dispatch over
 * column classes on every record).
 */
function addSource(type: TypeInfo, fields: readonly StructField[]): string {
  const ctx = new SourceContext();
  const fail = (v: string, t: TypeInfo, path: PathExpression) => `${ctx.use('fail')}(${v}, ${JSON.stringify(describeType(t))}, ${path.render()})`;
  const lines = [`if (typeof value !== 'object' || value === null || ${ctx.use('isArray')}(value)) ${fail('value', type, PathExpression.root)};`];
  fields.forEach((field, i) => {
    // Fresh names: the row encoders of nested fields take theirs from the same context.
    const f = ctx.fresh('field');
    const path = PathExpression.root.member(field.name);
    lines.push(`var ${f} = value[${JSON.stringify(field.name)}];`);
    const kind = field.type.kind;
    if (isPlainLeaf(kind)) {
      const leaf = plainLeafSource(kind, f, ctx, () => fail(f, field.type, path));
      // + 0: an int's -0 goes as 0, as a row's zigzag varint has it.
      lines.push(leaf.check, `c${i}.add(n, ${leaf.value}${kind === 'int' || kind === 'timestamp' ? ' + 0' : ''});`);
    } else {
      lines.push(`{ var out = c${i}.out;\n${encoderSource(field.type, f, path, ctx, false)}\n}`, `c${i}.added(n);`);
    }
  });
  const columns = fields.map((_, i) => `c${i} = cols[${i}]`).join(', ');
  lines.push(`return ${fields.map((_, i) => `c${i}.size(n + 1)`).join(' + ')};`);
  return ['"use strict";', ctx.prelude(), `var ${columns};`, `return function add(value, n) {\n${lines.join('\n')}\n};`].join('\n');
}

/**
 * `function decode(inp, n, out)`: first every column's place (checked against the input's end),
 * then one loop that builds each record as the row decoder does (the same object literal, so
 * the records have the same shape either way).
 */
function loop(perRecord: readonly string[], values: readonly string[], narrow: string): string {
  return ['for (var i = 0; i < n; i++) {', ...perRecord.map((line) => line.replaceAll('NARROW', narrow)), `out.push({ ${values.join(', ')} });`, '}'].join('\n');
}

function decodeSource(fields: readonly StructField[]): string {
  const ctx = new SourceContext();
  const locate: string[] = ['var buf = inp.buf, view = inp.view, p = inp.pos, end = inp.end;'];
  const perRecord: string[] = [];
  const rowReaders: string[] = [];
  const after: string[] = [];
  const values: string[] = [];
  /** Conditions for the loop where every int column is i32: its values stay small integers, never a double's representation. */
  const narrow: string[] = [];
  const need = (bytes: string, what: string) => `if (p + ${bytes} > end) inp.fail(${JSON.stringify(`a block's ${what} column of `)} + (${bytes}) + " bytes with " + (end - p) + " left", p);`;
  fields.forEach((field, i) => {
    const what = JSON.stringify(field.name).slice(1, -1);
    switch (field.type.kind) {
      case 'int':
      case 'timestamp':
      case 'double':
        locate.push(
          need('1', what),
          `var w${i} = buf[p], d${i} = p + 1;`,
          `if (w${i} !== 8 && (w${i} !== 4 || ${field.type.kind === 'double'})) inp.fail("a number column of width " + w${i}, p);`,
          `p = d${i};`,
          need(`n * w${i}`, what),
          `p += n * w${i};`,
        );
        if (field.type.kind === 'double') perRecord.push(`var v${i} = view.getFloat64(d${i} + 8 * i, true);`);
        else {
          perRecord.push(`var v${i} = NARROW ? view.getInt32(d${i} + 4 * i, true) : w${i} === 4 ? view.getInt32(d${i} + 4 * i, true) : view.getFloat64(d${i} + 8 * i, true);`);
          narrow.push(`w${i} === 4`);
        }
        break;
      case 'boolean':
        locate.push(need('n', what), `var d${i} = p;`, `p += n;`);
        perRecord.push(`var b${i} = buf[d${i} + i]; if (b${i} > 1) inp.fail("a boolean byte is " + b${i}, d${i} + i);`, `var v${i} = b${i} === 1;`);
        break;
      case 'string':
        locate.push(
          need('5', what),
          `var w${i} = buf[p], total${i} = view.getUint32(p + 1, true), l${i} = p + 5;`,
          `if (w${i} !== 1 && w${i} !== 2 && w${i} !== 4) inp.fail("string lengths of width " + w${i}, p);`,
          `p = l${i};`,
          need(`n * w${i} + total${i}`, what),
          `var s${i} = l${i} + n * w${i}, send${i} = s${i} + total${i};`,
          `p = send${i};`,
        );
        perRecord.push(
          `var n${i} = w${i} === 1 ? buf[l${i} + i] : w${i} === 2 ? view.getUint16(l${i} + 2 * i, true) : view.getUint32(l${i} + 4 * i, true);`,
          `if (s${i} + n${i} > send${i}) inp.fail("a string of " + n${i} + " bytes past its column's end", s${i});`,
          `var v${i} = inp.stringAt(s${i}, n${i}); s${i} += n${i};`,
        );
        after.push(`if (s${i} !== send${i}) inp.fail("a string column of " + total${i} + " bytes whose lengths add up to less", send${i});`);
        break;
      default: {
        const d = decoderSource(field.type, ctx);
        rowReaders.push(`function read${i}(inp) {\n${d.statements}\nreturn ${d.expression};\n}`);
        locate.push(
          need('4', what),
          `var total${i} = view.getUint32(p, true);`,
          `p += 4;`,
          need(`total${i}`, what),
          `var r${i} = new DataInput(buf, p, p + total${i});`,
          `p += total${i};`,
        );
        perRecord.push(`var v${i} = read${i}(r${i});`);
        after.push(`if (r${i}.pos !== r${i}.end) inp.fail("a column of " + total${i} + " bytes decoded to " + (r${i}.pos - (r${i}.end - total${i})), r${i}.pos);`);
      }
    }
    values.push(`${JSON.stringify(field.name)}: v${i}`);
  });
  return [
    '"use strict";',
    ctx.prelude(),
    ...rowReaders,
    'return function decode(inp, n, out) {',
    ...locate,
    ...(narrow.length === 0 ? [loop(perRecord, values, 'true')] : [`if (${narrow.join(' && ')}) {`, loop(perRecord, values, 'true'), '} else {', loop(perRecord, values, 'false'), '}']),
    ...after,
    'inp.pos = p;',
    '};',
  ].join('\n');
}
