/**
 * java.util.Random (a 48-bit linear congruential generator), bit for bit: Beam's Nexmark generator
 * seeds one per event id, so the same id gives the same draws here as there. The 48-bit state is
 * kept as two 24-bit halves so every product stays exact in a double.
 */
const MUL_HI = 0x5de;
const MUL_LO = 0xece66d;
const TWO_24 = 0x1000000;
/** 2^-(48 - bits) by bits. */
const SHIFT = Array.from({ length: 33 }, (_, bits) => 2 ** (bits - 48));

export class JavaRandom {
  #hi = 0;
  #lo = 0;

  constructor(seed = 0) {
    this.setSeed(seed);
  }

  /** A whole number in [0, 2^53). */
  setSeed(seed: number): void {
    const lo = seed % TWO_24;
    this.#lo = lo ^ MUL_LO;
    this.#hi = (Math.floor(seed / TWO_24) % TWO_24) ^ MUL_HI;
  }

  /** The next `bits` (at most 32) bits, unsigned. */
  next(bits: number): number {
    // Division by powers of two and floor are exact here and much cheaper than % on doubles.
    const p = this.#lo * MUL_LO + 0xb;
    const carry = Math.floor(p / TWO_24);
    const lo = p - carry * TWO_24;
    const h = this.#hi * MUL_LO + this.#lo * MUL_HI + carry;
    const hi = h - Math.floor(h / TWO_24) * TWO_24;
    this.#lo = lo;
    this.#hi = hi;
    return Math.floor((hi * TWO_24 + lo) * SHIFT[bits]!);
  }

  /** Java's nextInt(): a signed 32-bit value. */
  nextInt(): number {
    return this.next(32) | 0;
  }

  /** Java's nextInt(bound): uniform in [0, bound), bound in [1, 2^31). */
  nextIntBelow(bound: number): number {
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Math.floor((bound * r) / 2147483648);
    for (let u = r; u - (r = u % bound) + m > 0x7fffffff; u = this.next(31));
    return r;
  }

  nextDouble(): number {
    return (this.next(26) * 134217728 + this.next(27)) / 9007199254740992;
  }

  /** Java's nextLong(), as a bigint. */
  nextLong(): bigint {
    return BigInt.asIntN(64, (BigInt(this.nextInt()) << 32n) + BigInt(this.nextInt()));
  }
}
