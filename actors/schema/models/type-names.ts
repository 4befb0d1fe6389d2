/** The GraphQL type names Hasura derives from a table's base name; one place, used by schema and compiler. */
export const typeNames = {
  object: (table: string) => table,
  aggregate: (table: string) => `${table}_aggregate`,
  aggregateFields: (table: string) => `${table}_aggregate_fields`,
  /** `<t>_avg_fields`, `<t>_max_fields`... */
  aggregateFunctionFields: (table: string, fn: string) => `${table}_${fn}_fields`,
  boolExp: (table: string) => `${table}_bool_exp`,
  /** `<t>_aggregate_bool_exp` and its `<t>_aggregate_bool_exp_count`: filters on aggregates of an array relationship. */
  aggregateBoolExp: (table: string) => `${table}_aggregate_bool_exp`,
  aggregateBoolExpCount: (table: string) => `${table}_aggregate_bool_exp_count`,
  orderBy: (table: string) => `${table}_order_by`,
  aggregateOrderBy: (table: string) => `${table}_aggregate_order_by`,
  /** `<t>_avg_order_by`, `<t>_max_order_by`... */
  aggregateFunctionOrderBy: (table: string, fn: string) => `${table}_${fn}_order_by`,
  selectColumn: (table: string) => `${table}_select_column`,
  /** `<t>_stream_cursor_input { initial_value, ordering }` and its `<t>_stream_cursor_value_input`. */
  streamCursorInput: (table: string) => `${table}_stream_cursor_input`,
  streamCursorValueInput: (table: string) => `${table}_stream_cursor_value_input`,
  comparison: (scalar: string) => `${scalar}_comparison_exp`,
  arrayComparison: (scalar: string) => `${scalar}_array_comparison_exp`,
} as const;

export const QUERY_ROOT = 'query_root';
export const SUBSCRIPTION_ROOT = 'subscription_root';
