import type { TypeInfo } from './type-info.ts';

/** The fewest bytes a value of this type takes: a length read from the wire is checked against it before anything is allocated. */
export function minEncodedSize(type: TypeInfo): number {
  switch (type.kind) {
    case 'double':
    case 'bigint':
      return 8;
    case 'struct':
      return type.fields.reduce((n, f) => n + minEncodedSize(f.type), 0);
    case 'tuple':
      return type.items.reduce((n, t) => n + minEncodedSize(t), 0);
    default:
      return 1;
  }
}
