/**
 * An exact decimal number: an unscaled BigInt and a scale (value = unscaled / 10^scale), as Java's
 * BigDecimal, which Flink CDC's expressions compute DECIMAL with. weir's CDC sources carry DECIMAL
 * and NUMERIC values as their printed text ('-12.50'); going through a JS number would round them.
 */
export type DecimalRounding = 'HALF_UP' | 'DOWN' | 'FLOOR' | 'CEILING';

const TEN = 10n;
const POW: bigint[] = [1n];
function pow10(n: number): bigint {
  while (POW.length <= n) POW.push(POW[POW.length - 1]! * TEN);
  return POW[n]!;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

export class ExactDecimal {
  /** The unscaled value as a double when it is a safe integer (most rows' values): BigInt costs 100s of ns an operation. NaN otherwise. */
  declare readonly small: number;
  declare readonly scale: number;
  // Assigned in one order with one type each (BigInt or null), so every instance keeps one shape.
  declare private big: bigint | null;

  /** `unscaled` a bigint, or a number that is a safe integer. */
  constructor(unscaled: bigint | number, scale: number) {
    if (typeof unscaled === 'number') {
      this.small = unscaled === 0 ? 0 : unscaled; // no -0
      this.scale = scale;
      this.big = null;
    } else {
      this.small = unscaled >= -SAFE && unscaled <= SAFE ? Number(unscaled) : NaN;
      this.scale = scale;
      this.big = unscaled;
    }
  }

  /** A decimal from a safe-integer unscaled value, without BigInt. */
  static ofSmall(unscaled: number, scale: number): ExactDecimal {
    return new ExactDecimal(unscaled, scale);
  }

  get unscaled(): bigint {
    return (this.big ??= BigInt(this.small));
  }

  /** Parses decimal text ('-12.50', '3', '.5', '1.5e3'); null for text that is no decimal number. */
  static parse(text: string): ExactDecimal | null {
    return parsePlain(text) ?? ExactDecimal.parseGeneral(text);
  }

  private static parseGeneral(text: string): ExactDecimal | null {
    const m = DECIMAL_TEXT.exec(text.trim());
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
    const frac = m[3] ?? '';
    let unscaled = BigInt((m[2] || '0') + frac);
    let scale = frac.length;
    const exp = m[4] ? Number(m[4]) : 0;
    if (exp > 0) {
      if (exp >= scale) {
        unscaled *= pow10(exp - scale);
        scale = 0;
      } else scale -= exp;
    } else scale -= exp;
    return new ExactDecimal(m[1] === '-' ? -unscaled : unscaled, scale);
  }

  static fromInteger(v: number | bigint): ExactDecimal {
    return new ExactDecimal(BigInt(v), 0);
  }

  /** A double as Java's BigDecimal.valueOf does: through its shortest printed form. */
  static fromDouble(v: number): ExactDecimal | null {
    return Number.isFinite(v) ? ExactDecimal.parse(String(v)) : null;
  }

  withScale(scale: number, rounding: DecimalRounding = 'HALF_UP'): ExactDecimal {
    if (scale === this.scale) return this;
    const n = this.small;
    if (n === n && scale - this.scale <= 15 && this.scale - scale <= 15) {
      if (scale > this.scale) {
        const r = n * NUM_POW[scale - this.scale]!;
        if (Math.abs(r) <= MAX_SAFE) return ExactDecimal.ofSmall(r, scale);
      } else return ExactDecimal.ofSmall(divideSmall(n, NUM_POW[this.scale - scale]!, rounding), scale);
    }
    if (scale > this.scale) return new ExactDecimal(this.unscaled * pow10(scale - this.scale), scale);
    return new ExactDecimal(divideRounded(this.unscaled, pow10(this.scale - scale), rounding), scale);
  }

  add(o: ExactDecimal): ExactDecimal {
    const s = Math.max(this.scale, o.scale);
    const a = this.withScale(s).small;
    const b = o.withScale(s).small;
    if (a === a && b === b && Math.abs(a + b) <= MAX_SAFE) return ExactDecimal.ofSmall(a + b, s);
    return new ExactDecimal(this.withScale(s).unscaled + o.withScale(s).unscaled, s);
  }

  subtract(o: ExactDecimal): ExactDecimal {
    const s = Math.max(this.scale, o.scale);
    const a = this.withScale(s).small;
    const b = o.withScale(s).small;
    if (a === a && b === b && Math.abs(a - b) <= MAX_SAFE) return ExactDecimal.ofSmall(a - b, s);
    return new ExactDecimal(this.withScale(s).unscaled - o.withScale(s).unscaled, s);
  }

  multiply(o: ExactDecimal): ExactDecimal {
    const p = this.small * o.small;
    // A product below 2^53 in magnitude is exact in a double (NaN fails the test).
    if (Math.abs(p) <= MAX_SAFE) return ExactDecimal.ofSmall(p, this.scale + o.scale);
    return new ExactDecimal(this.unscaled * o.unscaled, this.scale + o.scale);
  }

  /** this / o at `scale` digits, rounded by `rounding`; null when o is zero. */
  divide(o: ExactDecimal, scale: number, rounding: DecimalRounding): ExactDecimal | null {
    if (o.unscaled === 0n) return null;
    // this/o = (a/10^sa) / (b/10^sb); scaled by 10^scale: a * 10^(scale - sa + sb) / b.
    const shift = scale - this.scale + o.scale;
    const num = shift >= 0 ? this.unscaled * pow10(shift) : this.unscaled;
    const den = shift >= 0 ? o.unscaled : o.unscaled * pow10(-shift);
    return new ExactDecimal(divideRounded(num, den, rounding), scale);
  }

  /** The remainder with the dividend's sign (Java's BigDecimal.remainder); null when o is zero. */
  remainder(o: ExactDecimal): ExactDecimal | null {
    if (o.unscaled === 0n) return null;
    const s = Math.max(this.scale, o.scale);
    return new ExactDecimal(this.withScale(s).unscaled % o.withScale(s).unscaled, s);
  }

  negate(): ExactDecimal {
    if (this.small === this.small) return ExactDecimal.ofSmall(-this.small, this.scale);
    return new ExactDecimal(-this.unscaled, this.scale);
  }

  abs(): ExactDecimal {
    return this.unscaled < 0n ? this.negate() : this;
  }

  compare(o: ExactDecimal): number {
    const s = Math.max(this.scale, o.scale);
    const x = this.withScale(s).small;
    const y = o.withScale(s).small;
    if (x === x && y === y) return x < y ? -1 : x > y ? 1 : 0;
    const a = this.withScale(s).unscaled;
    const b = o.withScale(s).unscaled;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  isZero(): boolean {
    return this.small === 0 || (this.small !== this.small && this.unscaled === 0n);
  }

  /** Digits of the unscaled value (BigDecimal's precision), at least 1. */
  precision(): number {
    const u = this.unscaled < 0n ? -this.unscaled : this.unscaled;
    return u === 0n ? 1 : u.toString().length;
  }

  toNumber(): number {
    return Number(this.toString());
  }

  /** Truncated toward zero, as Java's longValue(). */
  toBigInt(): bigint {
    return this.scale <= 0 ? this.unscaled * pow10(-this.scale) : this.unscaled / pow10(this.scale);
  }

  /** Plain text with exactly `scale` decimals ('-0.50'), as the CDC sources print DECIMAL. */
  toString(): string {
    const n = this.small;
    if (this.scale > 0 && n === n) {
      // The common case without BigInt's string conversion: the unscaled value fits a double exactly.
      const digits = String(n < 0 ? -n : n).padStart(this.scale + 1, '0');
      const cut = digits.length - this.scale;
      return `${n < 0 ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`;
    }
    if (this.scale <= 0) return (this.unscaled * pow10(-this.scale)).toString();
    const neg = this.unscaled < 0n;
    const digits = (neg ? -this.unscaled : this.unscaled).toString().padStart(this.scale + 1, '0');
    const cut = digits.length - this.scale;
    return `${neg ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`;
  }
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const NUM_POW = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** divideRounded on safe integers (exact: the quotient and remainder of safe integers are). */
function divideSmall(num: number, den: number, rounding: DecimalRounding): number {
  const q = Math.trunc(num / den);
  const r = num - q * den;
  if (r === 0) return q;
  const negative = num < 0;
  switch (rounding) {
    case 'DOWN':
      return q;
    case 'FLOOR':
      return negative ? q - 1 : q;
    case 'CEILING':
      return negative ? q : q + 1;
    case 'HALF_UP':
      return Math.abs(r) * 2 >= den ? (negative ? q - 1 : q + 1) : q;
  }
}

/**
 * The fast path of parse: plain text ('-12.50', '3') of up to 15 digits, scanned by hand; a
 * regular expression and BigInt's string parser cost a microsecond a value, this a few tens of ns.
 */
function parsePlain(text: string): ExactDecimal | null {
  const len = text.length;
  let i = 0;
  let neg = false;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */ || first === 43 /* + */) {
    neg = first === 45;
    i = 1;
  }
  let digits = 0;
  let value = 0;
  let scale = -1;
  for (; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
      if (scale >= 0) scale++;
    } else if (c === 46 /* . */ && scale < 0) scale = 0;
    else return null;
  }
  if (digits === 0 || digits > 15) return null;
  return ExactDecimal.ofSmall(neg ? -value : value, scale < 0 ? 0 : scale);
}

function divideRounded(num: bigint, den: bigint, rounding: DecimalRounding): bigint {
  const q = num / den; // truncated toward zero
  const r = num % den;
  if (r === 0n) return q;
  const negative = num < 0n !== den < 0n;
  switch (rounding) {
    case 'DOWN':
      return q;
    case 'FLOOR':
      return negative ? q - 1n : q;
    case 'CEILING':
      return negative ? q : q + 1n;
    case 'HALF_UP': {
      const twice = (r < 0n ? -r : r) * 2n;
      const d = den < 0n ? -den : den;
      return twice >= d ? (negative ? q - 1n : q + 1n) : q;
    }
  }
}
