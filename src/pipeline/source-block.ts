import type { YAMLMap } from 'yaml';
import type { BlockReader, ReadValue } from './block-reader.ts';
import { BadRegexProblem, BadValueProblem, MissingKeyProblem } from './pipeline-problem.ts';
import { SOURCE_KEYS, SOURCE_TYPES, type SourceType, type KeySpec } from './pipeline-keys.ts';
import type { SourceDefinition } from './pipeline-definition.ts';
import { splitUnescaped, TablePatternError, TableSelector, isLiteral } from './table-selector.ts';
import { isValidTimeZone } from './time-zone.ts';
import type { YamlSource } from './yaml-source.ts';

/** Reads the `source` block; undefined when it has problems (reported to the reader). */
export function readSourceBlock(src: YamlSource, reader: BlockReader, map: YAMLMap): SourceDefinition | undefined {
  const typeEntry = reader.entries(map).find((e) => e.key === 'type');
  const typeText = typeEntry?.value && 'value' in typeEntry.value ? String((typeEntry.value as { value: unknown }).value) : undefined;
  const type = SOURCE_TYPES.find((t) => t === typeText?.toLowerCase());
  const specs = SOURCE_KEYS[type ?? 'mysql'];
  const values = reader.read(map, 'source', `source${type ? ` (${type})` : ''}`, type ? specs : anyTypeKeys(SOURCE_KEYS));
  if (!type || !values.has('type')) return undefined;
  const before = reader.problemCount;
  const tables = values.get('tables');
  const excluded = values.get('tables.exclude');
  let database = values.get('database')?.value as string | undefined;
  let selector: TableSelector | undefined;
  let shapedWell = false;
  let excludedSelector: TableSelector | undefined;
  if (tables) {
    const shaped = shapeTables(src, reader, type, tables, database);
    database = shaped?.database ?? database;
    shapedWell = shaped !== undefined;
    selector = shaped && parseSelector(src, reader, shaped.text, tables, 'source.tables');
  }
  if (excluded) {
    const shaped = shapeTables(src, reader, type, excluded, database);
    excludedSelector = shaped && parseSelector(src, reader, shaped.text, excluded, 'source.tables.exclude');
  }
  if (type === 'postgres' && shapedWell && !database) {
    reader.report(new MissingKeyProblem(src.placeOf(map, 'source'), 'database', "name it, or write the tables as database.schema.table (Flink CDC's form)"));
  }
  checkStartup(src, reader, map, type, values);
  const zone = values.get('server-time-zone');
  if (zone && !isValidTimeZone(String(zone.value))) reader.report(new BadValueProblem(src.placeOf(zone.node, 'source.server-time-zone'), `'${zone.value}' is not a time zone (an IANA name such as UTC or Asia/Shanghai)`));
  if (!selector || reader.problemCount > before) return undefined;
  const options = Object.fromEntries([...values].map(([k, v]) => [k, v.value]));
  if (database) options['database'] = database;
  const name = values.get('name')?.value as string | undefined;
  return { type, name, options, tables: selector, excludedTables: excludedSelector, place: src.placeOf(map, '') };
}

/**
 * The patterns as table ids of weir's source: MySQL and MariaDB ids are db.table; PostgreSQL ids
 * are schema.table, and Flink CDC's database.schema.table names the (one) database too.
 */
function shapeTables(src: YamlSource, reader: BlockReader, type: SourceType, read: ReadValue, database: string | undefined): { text: string; database: string | undefined } | undefined {
  const path = `source.${read.keyNode.toString()}`;
  const place = src.placeOf(read.node, path);
  const patterns = (read.value as string[]).flatMap((t) => splitUnescaped(t, ',')).map((p) => p.trim()).filter((p) => p.length > 0);
  const shaped: string[] = [];
  let db = database;
  for (const pattern of patterns) {
    const parts = splitUnescaped(pattern, '.');
    if (type !== 'postgres') {
      if (parts.length !== 2) return reportShape(reader, place, pattern, 'database.table');
      shaped.push(pattern);
      continue;
    }
    if (parts.length === 2) {
      shaped.push(pattern);
      continue;
    }
    if (parts.length !== 3) return reportShape(reader, place, pattern, 'schema.table or database.schema.table');
    const named = parts[0]!.trim();
    if (!isLiteral(named)) return reportProblem(reader, new BadValueProblem(place, `'${pattern}': the database part must be a name, not a pattern: a PostgreSQL source reads one database`));
    if (db !== undefined && db !== named) return reportProblem(reader, new BadValueProblem(place, `'${pattern}' names database '${named}', but the source reads '${db}': a PostgreSQL source reads one database`));
    db = named;
    shaped.push(parts.slice(1).join('.'));
  }
  return { text: shaped.join(','), database: db };
}

function reportShape(reader: BlockReader, place: ReturnType<YamlSource['placeOf']>, pattern: string, shape: string): undefined {
  return reportProblem(reader, new BadValueProblem(place, `'${pattern}' is not a ${shape} pattern ('.' separates the parts; write '\\.' for "any character")`));
}

function reportProblem(reader: BlockReader, problem: BadValueProblem): undefined {
  reader.report(problem);
  return undefined;
}

export function parseSelector(src: YamlSource, reader: BlockReader, text: string, read: ReadValue, path: string): TableSelector | undefined {
  try {
    return TableSelector.parse(text);
  } catch (e) {
    if (!(e instanceof TablePatternError)) throw e;
    reader.report(new BadRegexProblem(src.placeOf(read.node, path), e.pattern, e.cause));
    return undefined;
  }
}

/** A startup mode that needs a position has one. */
function checkStartup(src: YamlSource, reader: BlockReader, map: YAMLMap, type: SourceType, values: Map<string, ReadValue>): void {
  const mode = values.get('scan.startup.mode')?.value;
  const place = src.placeOf(values.get('scan.startup.mode')?.node ?? map, 'source.scan.startup.mode');
  if (type === 'postgres') return;
  if (mode === 'timestamp' && !values.has('scan.startup.timestamp-millis')) {
    reader.report(new MissingKeyProblem(place, 'scan.startup.timestamp-millis', "the 'timestamp' startup mode starts at this time"));
  }
  if (mode === 'specific-offset' && !values.has('scan.startup.specific-offset.gtid-set') && !(values.has('scan.startup.specific-offset.file') && values.has('scan.startup.specific-offset.pos'))) {
    reader.report(new MissingKeyProblem(place, 'scan.startup.specific-offset.file', "'specific-offset' starts at a binlog file and position (scan.startup.specific-offset.file and .pos) or at a GTID set (scan.startup.specific-offset.gtid-set)"));
  }
}

/** With the type unknown, the keys of every type (none required): the type's own problem is the one to report. */
function anyTypeKeys(all: Readonly<Record<string, readonly KeySpec[]>>): KeySpec[] {
  const byKey = new Map<string, KeySpec>();
  for (const spec of Object.values(all).flat()) if (!byKey.has(spec.key)) byKey.set(spec.key, { ...spec, required: spec.key === 'type' });
  return [...byKey.values()];
}
