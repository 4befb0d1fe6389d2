/** The GraphQL names of mutation types Hasura derives from a table's base name (beside type-names.ts). */
export const mutationTypeNames = {
  response: (table: string) => `${table}_mutation_response`,
  insertInput: (table: string) => `${table}_insert_input`,
  objectRelationshipInsert: (table: string) => `${table}_obj_rel_insert_input`,
  arrayRelationshipInsert: (table: string) => `${table}_arr_rel_insert_input`,
  onConflict: (table: string) => `${table}_on_conflict`,
  constraint: (table: string) => `${table}_constraint`,
  updateColumn: (table: string) => `${table}_update_column`,
  /** `<t>_set_input`, `<t>_inc_input`, `<t>_append_input`... from the operator `_set`, `_inc`, `_append`. */
  operatorInput: (table: string, operator: string) => `${table}${operator}_input`,
  pkColumns: (table: string) => `${table}_pk_columns_input`,
  updates: (table: string) => `${table}_updates`,
} as const;

export const MUTATION_ROOT = 'mutation_root';

/** The update operators, in the order they are applied to a column. */
export const UPDATE_OPERATORS = ['_set', '_inc', '_append', '_prepend', '_delete_key', '_delete_elem', '_delete_at_path'] as const;
export type UpdateOperator = (typeof UPDATE_OPERATORS)[number];
