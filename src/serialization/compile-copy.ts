import type { TypeInfo } from './type-info.ts';

type Copy = (value: unknown) => unknown;

const identity: Copy = (v) => v;

/**
 * A deep copy guided by the type, for copy-on-write state: what the caller may mutate without
 * touching the original. Immutable leaves are shared; structs copy their declared fields only
 * (what a round trip would keep); `any` and `json` fall back to structuredClone.
 */
export function compileCopy(type: TypeInfo): Copy {
  switch (type.kind) {
    case 'string':
    case 'int':
    case 'double':
    case 'bigint':
    case 'boolean':
      return identity;
    case 'timestamp':
      return (v) => (v instanceof Date ? new Date(v.getTime()) : v);
    case 'bytes':
      return (v) => (v as Uint8Array).slice();
    case 'json':
    case 'any':
      return cloneAny;
    case 'nullable': {
      const of = compileCopy(type.of);
      return (v) => (v == null ? v : of(v));
    }
    case 'array': {
      const of = compileCopy(type.of);
      return (v) => (v as unknown[]).map(of);
    }
    case 'map': {
      const key = compileCopy(type.key);
      const value = compileCopy(type.value);
      return (v) => new Map([...(v as Map<unknown, unknown>)].map(([k, x]) => [key(k), value(x)]));
    }
    case 'struct': {
      const fields = type.fields.map((f) => [f.name, compileCopy(f.type)] as const);
      return (v) => {
        const source = v as Record<string, unknown>;
        const copy: Record<string, unknown> = {};
        for (const [name, fieldCopy] of fields) copy[name] = fieldCopy(source[name]);
        return copy;
      };
    }
    case 'tuple': {
      const items = type.items.map(compileCopy);
      return (v) => items.map((copy, i) => copy((v as unknown[])[i]));
    }
  }
}

function cloneAny(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}
