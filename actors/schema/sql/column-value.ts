import type { ColumnModel } from '../models/table-model.js';
import type { Input } from './input.js';
import type { MutationContext } from './mutation-context.js';

/** A column's value as a parameter of its type; SQL null for null. */
export function columnValue(context: MutationContext, column: ColumnModel, input: Input): string {
  if (context.reader.isNull(input)) return `null::${column.type.sqlType}`;
  const json = column.type.category === 'json' || column.type.category === 'jsonb';
  return context.reader.param(input, context.params, column.type.sqlType, json ? 'json' : 'plain', column.type.isArray ? `[${column.type.scalar}!]` : column.type.scalar);
}
