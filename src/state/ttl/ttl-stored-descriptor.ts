import { defaultSerializer, type TypeSerializer } from '../../api/serializer.ts';
import {
  ListStateDescriptor,
  MapStateDescriptor,
  ValueStateDescriptor,
  type StateDescriptor,
} from '../../api/state-descriptors.ts';
import type { StateTtlConfig } from '../../api/state-ttl-config.ts';
import type { Type, TypeInfo } from '../../serialization/type-info.ts';
import { Types } from '../../serialization/types.ts';
import { ttlBytesSerializer } from './ttl-bytes-serializer.ts';
import { isExpired, type TtlValue } from './ttl-value.ts';

/**
 * What a stored value of a TTL state is at `now` once its expired parts are dropped: itself (the
 * same object when nothing expired), less its expired elements or entries, or undefined when
 * nothing of it is left. Full snapshots and the incremental cleanup use it; it never changes the
 * value it is given (a snapshot may still be writing it).
 */
export type TtlExpiry = (now: number) => (value: unknown) => unknown;

/** The descriptor a backend holds a TTL state under: the user's state with a timestamp beside each value. */
export type TtlStoredDescriptor = StateDescriptor & { readonly ttl: { readonly config: StateTtlConfig; readonly expire: TtlExpiry } };

export function isTtlStored(d: StateDescriptor): d is TtlStoredDescriptor {
  return (d as Partial<TtlStoredDescriptor>).ttl !== undefined;
}

const stamped = (of: TypeInfo): Type<TtlValue<unknown>> => Types.struct({ v: of as Type<unknown>, t: Types.timestamp }) as Type<TtlValue<unknown>>;

/**
 * The stored form of a TTL state: value, reducing and aggregating state as one TtlValue (a value
 * state under the same name), list state as a list of them, map state with one per entry. A
 * declared type gets a struct { v: type, t: timestamp }; the default serializer a struct of
 * { v: any, t }; a serializer of one's own (single values only) its bytes behind the timestamp.
 */
export function ttlStoredDescriptor(d: StateDescriptor, config: StateTtlConfig): TtlStoredDescriptor {
  const { name } = d;
  const ttlMs = config.ttlMs;
  const valueFilter: TtlExpiry = (now) => (x) => (isExpired((x as TtlValue<unknown>).t, ttlMs, now) ? undefined : x);
  const listFilter: TtlExpiry = (now) => (x) => {
    const list = x as Array<TtlValue<unknown>>;
    if (!list.some((e) => isExpired(e.t, ttlMs, now))) return list;
    const kept = list.filter((e) => !isExpired(e.t, ttlMs, now));
    return kept.length === 0 ? undefined : kept;
  };
  const mapFilter: TtlExpiry = (now) => (x) => {
    const map = x as Map<unknown, TtlValue<unknown>>;
    let expired = false;
    for (const e of map.values()) if (isExpired(e.t, ttlMs, now)) expired = true;
    if (!expired) return map;
    const kept = new Map<unknown, TtlValue<unknown>>();
    for (const [k, e] of map) if (!isExpired(e.t, ttlMs, now)) kept.set(k, e);
    return kept.size === 0 ? undefined : kept;
  };
  let stored: StateDescriptor;
  let filter: TtlExpiry;
  switch (d.kind) {
    case 'list': {
      const element = d.type === undefined ? Types.any : (d.type as { of: TypeInfo }).of;
      stored = new ListStateDescriptor<TtlValue<unknown>>(name, { elementType: stamped(element) });
      filter = listFilter;
      break;
    }
    case 'map': {
      const t = d.type as { key: TypeInfo; value: TypeInfo } | undefined;
      stored = new MapStateDescriptor<unknown, TtlValue<unknown>>(name, { keyType: (t?.key ?? Types.any) as Type<unknown>, valueType: stamped(t?.value ?? Types.any) });
      filter = mapFilter;
      break;
    }
    default: {
      const custom = d.type === undefined && d.serializer !== (defaultSerializer as TypeSerializer<unknown>);
      stored = custom
        ? new ValueStateDescriptor<TtlValue<unknown>>(name, { serializer: ttlBytesSerializer(d.serializer as TypeSerializer<unknown>) })
        : new ValueStateDescriptor<TtlValue<unknown>>(name, { type: stamped(d.type ?? Types.any) });
      filter = valueFilter;
    }
  }
  return Object.assign(stored, { ttl: { config, expire: filter } });
}
