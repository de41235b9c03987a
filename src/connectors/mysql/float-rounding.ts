/*
 * The server prints FLOAT with 6 significant digits (FLT_DIG) and FLOAT(M,D)/DOUBLE(M,D) with D
 * decimals, rounding the exact binary value half to even (dtoa). Number.prototype.toPrecision
 * rounds exact ties up instead (FLOAT 1234565 prints as 1234560, toPrecision(6) gives 1234570),
 * so the rounding works on the exact decimal expansion of the double, in BigInt.
 */

/** x = digits * 10^-scale exactly. */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    exp = biased - 1075;
  }
  if (exp >= 0) return { digits: mantissa << BigInt(exp), scale: 0 };
  return { digits: mantissa * 5n ** BigInt(-exp), scale: -exp };
}

/** Rounds |x| to `decimals` digits after the point (negative: to tens, hundreds, ...), half to even. */
function roundExact(x: number, exact: { digits: bigint; scale: number }, decimals: number): number {
  const { digits, scale } = exact;
  if (scale <= decimals) return x;
  const divisor = 10n ** BigInt(scale - decimals);
  let q = digits / divisor;
  const twice = (digits % divisor) * 2n;
  if (twice > divisor || (twice === divisor && (q & 1n) === 1n)) q += 1n;
  const v = Number(`${q}e${-decimals}`);
  return x < 0 ? -v : v;
}

/** The value the server prints for a FLOAT (6 significant digits), as a number; -0 becomes 0. */
export function roundSignificant(x: number, significant: number): number {
  if (x === 0 || !Number.isFinite(x)) return x + 0;
  const exact = exactDecimal(x);
  const magnitude = exact.digits.toString().length - 1 - exact.scale;
  return roundExact(x, exact, significant - 1 - magnitude) + 0;
}

/** The value the server prints for FLOAT(M,D)/DOUBLE(M,D) (D decimals), as a number; -0 becomes 0. */
export function roundDecimals(x: number, decimals: number): number {
  if (x === 0 || !Number.isFinite(x)) return x + 0;
  return roundExact(x, exactDecimal(x), decimals) + 0;
}
