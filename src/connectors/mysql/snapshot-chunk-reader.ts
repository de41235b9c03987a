// The chunk read itself (LOW/HIGH watermarks and the merge) is the CDC core's
// (../cdc/snapshot-chunk-reader.ts); MySQL's part is the chunk's SELECT, re-exported here where
// it has always been imported from.
export { selectChunk } from './chunk-queries.ts';
