import type { ColumnModel } from '../models/table-model.js';
import type { Input } from './input.js';
import type { MutationContext } from './mutation-context.js';
import { operandParam } from './operand-params.js';

/** A column's value as a parameter of its type; SQL null for null. */
export function columnValue(context: MutationContext, column: ColumnModel, input: Input): string {
  if (context.reader.isNull(input)) return `null::${column.type.sqlType}`;
  const { sqlType, encoding, construct } = operandParam(column.type, column.type.isArray ? 'array' : 'scalar');
  return construct(context.reader.param(input, context.params, sqlType, encoding, column.type.isArray ? `[${column.type.scalar}!]` : column.type.scalar));
}
