import type { SchemaChangeClassifier } from '../../api/two-phase-committing-sink.ts';
import { routedTableKey, type RoutedChange } from './routed-change.ts';

/**
 * How a pipeline's database sink has weir hold its schema changes: a ddl record, and its table's
 * records after it, wait until the transactions before it are committed.
 */
export const routedSchemaChanges: SchemaChangeClassifier<RoutedChange> = { tableOf: routedTableKey, holdsBack: (r) => r.op === 'ddl' };
