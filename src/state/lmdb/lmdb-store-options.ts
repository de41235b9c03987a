/**
 * How every thread opens an lmdb backend's store. Durability is the checkpoint's: the local store
 * is thrown away on every restart, so it need not be synced.
 */
export const LMDB_STORE_OPTIONS = { keyEncoding: 'binary', encoding: 'binary', noSync: true, noMetaSync: true, cache: false, compression: false } as const;
