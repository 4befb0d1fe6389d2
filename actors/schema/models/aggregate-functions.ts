import { isComparable, isNumeric, type ColumnType } from './column-types.js';
import type { ComputedFieldModel } from './function-model.js';
import type { TableAccess } from './role-access.js';

/** The aggregate functions of `<t>_aggregate` (compat-facts 8): those of numbers, and those of anything ordered. */
export const NUMERIC_FUNCTIONS = ['avg', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance'] as const;
export const COMPARABLE_FUNCTIONS = ['max', 'min'] as const;
export const AGGREGATE_FUNCTIONS: readonly string[] = [...NUMERIC_FUNCTIONS, ...COMPARABLE_FUNCTIONS];

/** The columns the role may select that aggregate function `fn` applies to. */
export function aggregatedColumns(access: TableAccess, fn: string): TableAccess['columns'] {
  const applies = appliesTo(fn);
  return access.columns.filter((column) => applies(column.type));
}

/**
 * The scalar computed fields the role may select that `fn` applies to: Hasura offers
 * them in `<t>_<fn>_fields` beside the columns (tableAggregationFields), with their args.
 */
export function aggregatedComputedFields(access: TableAccess, fn: string): ComputedFieldModel[] {
  const applies = appliesTo(fn);
  const fields: ComputedFieldModel[] = [];
  for (const target of access.fields.values()) {
    if (target.kind === 'computed-scalar' && target.field.returns.kind === 'scalar' && applies(target.field.returns.type)) fields.push(target.field);
  }
  return fields;
}

function appliesTo(fn: string): (type: ColumnType) => boolean {
  return (COMPARABLE_FUNCTIONS as readonly string[]).includes(fn) ? isComparable : isNumeric;
}
