import { SinkError } from '../../api/sink-error.ts';
import type { SinkSchemaChangeKind } from './sink-table-schema.ts';

/** A schema change the sink's behaviour does not allow (exception), or one that cannot apply to the table as it is. */
export class SchemaChangeRefusedError extends SinkError {
  readonly table: string;
  readonly kind: SinkSchemaChangeKind;

  constructor(target: string, table: string, kind: SinkSchemaChangeKind, problem: string) {
    super('SCHEMA_CHANGE_REFUSED', target, `table ${table}: ${kind}: ${problem}`);
    this.name = 'SchemaChangeRefusedError';
    this.table = table;
    this.kind = kind;
  }
}
