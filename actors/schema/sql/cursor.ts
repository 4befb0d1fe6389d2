import { parseJsonExactNumbers } from '../../../src/json/exact-numbers.js';
import { errors } from '../../../src/errors/errors.js';
import type { ColumnModel } from '../models/table-model.js';
import type { TableAccess } from '../models/role-access.js';
import type { CompileContext } from './context.js';
import { base64Text } from './node-id.js';
import type { OrderKey } from './order-by.js';
import { and, columnRef, or } from './sql-text.js';

/**
 * Cursors of Relay connections as Hasura makes them: the base64 of a JSON object of the
 * row's sort columns, by column name (`{"id" : 1}` for the default order, the primary
 * key). A cursor names a place in the order, so `after` and `before` become conditions on
 * those columns, compared in the order's directions and null placement.
 */
export interface CursorKey {
  column: ColumnModel;
  key: OrderKey;
}

/**
 * The order's keys on the table's own columns, or null when some key sorts on something
 * else (a relationship, an aggregate), which a cursor of column values cannot place.
 */
export function cursorKeys(access: TableAccess, alias: string, keys: readonly OrderKey[]): CursorKey[] | null {
  const byExpression = new Map(access.model.columns.map((column) => [columnRef(alias, column.name), column]));
  const found: CursorKey[] = [];
  for (const key of keys) {
    const column = byExpression.get(key.expression);
    if (column === undefined) return null;
    found.push({ column, key });
  }
  return found;
}

/** The SQL of a row's cursor. */
export function cursorExpression(context: CompileContext, keys: readonly CursorKey[], alias: string): string {
  const pairs = keys.map(({ column }) => `${context.params.add({ kind: 'constant', value: column.name }, 'text')}, ${columnRef(alias, column.name)}`);
  return base64Text(`json_build_object(${pairs.join(', ')})::text`);
}

/**
 * The condition that a row of `alias` comes after (or before) the cursor's place: the
 * first key that differs decides, per the Relay connections spec's "after" and "before".
 * A cursor that is not one is refused at the connection's `path`, as Hasura does.
 */
export function cursorCondition(context: CompileContext, keys: readonly CursorKey[], alias: string, cursor: string, side: 'after' | 'before', path: string): string {
  const values = decodeCursor(cursor, path);
  const placed = keys.map(({ column, key }) => {
    if (!Object.hasOwn(values, column.name)) throw errors.invalidCursor(path);
    const encoded = column.type.category === 'json' || column.type.category === 'jsonb' ? JSON.stringify(values[column.name]) : values[column.name];
    const value = values[column.name] === null ? 'null' : context.params.add({ kind: 'constant', value: encoded }, column.type.sqlType);
    return { row: columnRef(alias, column.name), value, key };
  });
  const alternatives = placed.map((current, index) => and([
    ...placed.slice(0, index).map((earlier) => `${earlier.row} is not distinct from ${earlier.value}`),
    side === 'after' ? follows(current.row, current.value, current.key) : follows(current.value, current.row, current.key),
  ]));
  return or(alternatives);
}

/** Whether `a` sorts strictly after `b` under `key`; never null, so that a negation stays exact. */
function follows(a: string, b: string, key: OrderKey): string {
  const greater = key.direction === 'asc' ? '>' : '<';
  return key.nulls === 'last'
    ? `(${b} is not null and (${a} is null or ${a} ${greater} ${b}))`
    : `(${a} is not null and (${b} is null or ${a} ${greater} ${b}))`;
}

/** A cursor's values, numbers JavaScript cannot hold exactly kept as their text (exact-numbers.ts). */
function decodeCursor(cursor: string, path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseJsonExactNumbers(Buffer.from(cursor, 'base64').toString('utf8'));
  } catch {
    throw errors.invalidCursor(path);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw errors.invalidCursor(path);
  return parsed as Record<string, unknown>;
}
