import { errors } from '../../../src/errors/errors.js';
import type { TableAccess } from '../models/role-access.js';
import { readSource, type CompileContext } from './context.js';
import { argumentsOf, type CollectedField } from './fields.js';
import type { Input } from './input.js';
import { cappedCount, rowCount } from './limit.js';
import { renderRows, type RowSet } from './row-set.js';
import { rowObject } from './select.js';
import { columnRef } from './sql-text.js';
import { compileWhere, permissionFilter, visibleRows } from './where.js';

/**
 * `<t>_stream(batch_size, cursor: [{initial_value: {<column>: v}, ordering}], where)`
 * (Hasura v2): the next `batch_size` rows after the cursor value in cursor order, and the
 * cursor value the stream moves on to (the last row's, as text; null for an empty batch).
 * The cursor is a parameter of its own, which the subscriptions actor replaces as the
 * stream advances; rows that share a cursor value across a batch boundary can be skipped,
 * so the cursor column is best unique (as Hasura documents).
 */
export interface CompiledStream {
  /** A subquery (to alias) of one row: `rows` (the batch as a JSON array) and `cursor`. */
  source: string;
  /** The number of the cursor's parameter. */
  cursorParam: number;
}

export function compileStream(context: CompileContext, access: TableAccess, field: CollectedField): CompiledStream {
  const { reader, params } = context;
  const args = argumentsOf(field);
  const { column, value, descending } = streamCursor(context, access, args.get('cursor')!, `${field.path}.args.cursor`);
  const alias = context.aliases.fresh();
  const cursor = params.addOwn(reader.source(value, 'plain', column.type.scalar), column.type.sqlType);
  const columnSql = columnRef(alias, column.name);
  const conditions = [`${columnSql} ${descending ? '<' : '>'} ${cursor.placeholder}`];
  const filter = permissionFilter(context, access, alias);
  if (filter !== null) conditions.push(filter);
  const where = args.get('where');
  if (where !== undefined && !reader.isNull(where)) {
    const condition = compileWhere(context, access, alias, where);
    if (condition !== 'true') conditions.push(condition);
  }
  const requested = rowCount(reader, args.get('batch_size')!);
  const direction = descending ? 'desc' : 'asc';
  const rows: RowSet = {
    access,
    alias,
    source: visibleRows(context, access, readSource(context, access)),
    conditions,
    orderKeys: [{ expression: columnSql, direction, nulls: 'last' }],
    distinctOn: [],
    limit: cappedCount(requested, access.limit),
    offset: null,
  };
  const last = `${descending ? 'min' : 'max'}(${columnSql})::text`;
  const source = `(select coalesce(json_agg(${rowObject(context, access, alias, field)} order by ${columnSql} ${direction}), '[]') as "rows", ${last} as "cursor" ${renderRows(rows)})`;
  return { source, cursorParam: cursor.index };
}

/** The one column of the cursor argument, its initial value and ordering (Hasura's refusals otherwise). */
function streamCursor(context: CompileContext, access: TableAccess, input: Input, path: string) {
  const { reader } = context;
  const cursors = reader.items(input).filter((item) => !reader.isNull(item));
  if (cursors.length === 0) throw errors.streamCursorRequired(path);
  if (cursors.length > 1) throw errors.streamCursorsMultiple(path);
  const fields = new Map(reader.fields(cursors[0]!));
  const initial = fields.get('initial_value')!;
  const columns = reader.fields(initial).filter(([, value]) => !reader.isNull(value));
  if (columns.length === 0) throw errors.streamCursorRequired(path);
  if (columns.length > 1) throw errors.streamCursorsMultiple(path);
  const [name, value] = columns[0]!;
  const column = access.columnsByField.get(name)!;
  const ordering = fields.get('ordering');
  const descending = ordering !== undefined && !reader.isNull(ordering) && reader.name(ordering) === 'DESC';
  return { column, value, descending };
}
