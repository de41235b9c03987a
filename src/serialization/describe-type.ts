import type { TypeInfo } from './type-info.ts';

/** A type as people write it, for error messages: `struct{word: string, count: int}`. */
export function describeType(type: TypeInfo): string {
  switch (type.kind) {
    case 'nullable':
      return `nullable<${describeType(type.of)}>`;
    case 'array':
      return `array<${describeType(type.of)}>`;
    case 'map':
      return `map<${describeType(type.key)}, ${describeType(type.value)}>`;
    case 'struct':
      return `struct{${type.fields.map((f) => `${fieldName(f.name)}: ${describeType(f.type)}`).join(', ')}}`;
    case 'tuple':
      return `tuple[${type.items.map(describeType).join(', ')}]`;
    default:
      return type.kind;
  }
}

function fieldName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}
