import { Packr } from 'msgpackr';
import { defaultSerializer, type TypeSerializer } from '../../api/serializer.ts';
import type { WindowKey } from '../../api/windowing/window-assigner.ts';

const packr = new Packr({ useRecords: false, moreTypes: true, int64AsType: 'bigint' as const });

/**
 * The per-key value of window state: window (or pane) -> contents. MessagePack writes a Map as a
 * map and reads it back as an object (with string keys), so it is written as its entries, each
 * value as the default serializer writes state values.
 */
export const windowMapSerializer: TypeSerializer<Map<WindowKey, unknown>> = {
  id: 'weir-window-map',
  version: 1,
  serialize: (map) => packr.pack([...map]),
  deserialize: (bytes) => new Map(packr.unpack(bytes) as Array<[WindowKey, unknown]>),
  copy: (map) => {
    const copy = new Map<WindowKey, unknown>();
    for (const [k, v] of map) copy.set(k, defaultSerializer.copy(v));
    return copy;
  },
};
