import type { BinaryReader } from './binary-reader.ts';

// Bytes for 0..8 leftover decimal digits; whole groups of 9 digits take 4 bytes.
const DIG2BYTES = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

export function decimalBinarySize(precision: number, scale: number): number {
  const intg = precision - scale;
  return Math.floor(intg / 9) * 4 + DIG2BYTES[intg % 9]! + Math.floor(scale / 9) * 4 + DIG2BYTES[scale % 9]!;
}

/**
 * Reads a DECIMAL(precision, scale) in the server's binary format (decimal2bin): big-endian
 * groups of 9 digits, the sign in the top bit (set for positive), negatives stored inverted.
 * Returns the value as the server prints it: exactly `scale` digits after the point.
 */
export function readBinaryDecimal(r: BinaryReader, precision: number, scale: number): string {
  const bytes = Buffer.from(r.bytes(decimalBinarySize(precision, scale)));
  const negative = (bytes[0]! & 0x80) === 0;
  bytes[0]! ^= 0x80;
  if (negative) for (let i = 0; i < bytes.length; i++) bytes[i] = ~bytes[i]! & 0xff;
  const intg = precision - scale;
  let at = 0;
  const group = (size: number): number => {
    const v = size === 0 ? 0 : bytes.readUIntBE(at, size);
    at += size;
    return v;
  };
  let int = '';
  if (intg % 9 > 0) int += String(group(DIG2BYTES[intg % 9]!));
  for (let i = 0; i < Math.floor(intg / 9); i++) int += String(group(4)).padStart(9, '0');
  let frac = '';
  for (let i = 0; i < Math.floor(scale / 9); i++) frac += String(group(4)).padStart(9, '0');
  if (scale % 9 > 0) frac += String(group(DIG2BYTES[scale % 9]!)).padStart(scale % 9, '0');
  int = int.replace(/^0+/, '') || '0';
  const zero = /^[0.]*$/.test(int + frac);
  return `${negative && !zero ? '-' : ''}${int}${scale > 0 ? `.${frac}` : ''}`;
}
