import { isExtensionType, type ColumnType } from './column-types.js';
import type { ComparisonOperator, OperandKind } from './comparison-operator.js';
import { extensionOperators, operatorInSchema } from './extension-operators.js';

export type { ComparisonOperator, OperandKind } from './comparison-operator.js';

/**
 * The comparison operators of `<type>_comparison_exp`, one table for the schema builder
 * (which operators a column type offers, and their operand types) and the compiler (the
 * SQL each one becomes), so the two cannot disagree. Names and meanings are Hasura's.
 */

/**
 * How an operator is spelled: bare for built-in types; `OPERATOR("schema".=)` for an
 * extension's type, whose operators live in the extension's schema, maybe off the search_path.
 */
type OperatorSpelling = (sql: string) => string;
const bare: OperatorSpelling = (sql) => sql;

const binary = (name: string, sql: string, operand: OperandKind, description?: string, spell: OperatorSpelling = bare): ComparisonOperator => ({
  name,
  operand,
  render: (column, value) => `${column} ${spell(sql)} ${value}`,
  ...(description === undefined ? {} : { description }),
});

const EQUALITY = (operand: OperandKind, spell: OperatorSpelling = bare): ComparisonOperator[] => [
  binary('_eq', '=', operand, undefined, spell),
  binary('_neq', '<>', operand, undefined, spell),
];

const ORDERING = (operand: OperandKind, spell: OperatorSpelling = bare): ComparisonOperator[] => [
  ...EQUALITY(operand, spell),
  binary('_gt', '>', operand, undefined, spell),
  binary('_gte', '>=', operand, undefined, spell),
  binary('_lt', '<', operand, undefined, spell),
  binary('_lte', '<=', operand, undefined, spell),
];

const IS_NULL: ComparisonOperator = { name: '_is_null', operand: 'boolean', render: (column) => `${column} is null` };

const MEMBERSHIP = (spell: OperatorSpelling = bare): ComparisonOperator[] => [
  { name: '_in', operand: 'scalar-list', render: (column, value) => `${column} ${spell('=')} any(${value})` },
  { name: '_nin', operand: 'scalar-list', render: (column, value) => `${column} ${spell('<>')} all(${value})` },
];

const TEXT: ComparisonOperator[] = [
  binary('_ilike', 'ilike', 'string', 'does the column match the given case-insensitive pattern'),
  binary('_iregex', '~*', 'string', 'does the column match the given POSIX regular expression, case insensitive'),
  binary('_like', 'like', 'string', 'does the column match the given pattern'),
  binary('_nilike', 'not ilike', 'string', 'does the column NOT match the given case-insensitive pattern'),
  binary('_niregex', '!~*', 'string', 'does the column NOT match the given POSIX regular expression, case insensitive'),
  binary('_nlike', 'not like', 'string', 'does the column NOT match the given pattern'),
  binary('_nregex', '!~', 'string', 'does the column NOT match the given POSIX regular expression, case sensitive'),
  binary('_nsimilar', 'not similar to', 'string', 'does the column NOT match the given SQL regular expression'),
  binary('_regex', '~', 'string', 'does the column match the given POSIX regular expression, case sensitive'),
  binary('_similar', 'similar to', 'string', 'does the column match the given SQL regular expression'),
];

const JSONB: ComparisonOperator[] = [
  binary('_contained_in', '<@', 'scalar', 'is the column contained in the given json value'),
  binary('_contains', '@>', 'scalar', 'does the column contain the given json value at the top level'),
  binary('_has_key', '?', 'string', 'does the string exist as a top-level key in the column'),
  binary('_has_keys_all', '?&', 'string-list', 'do all of these strings exist as top-level keys in the column'),
  binary('_has_keys_any', '?|', 'string-list', 'do any of these strings exist as top-level keys in the column'),
];

const ARRAY: ComparisonOperator[] = [
  binary('_contained_in', '<@', 'array', 'is the array contained in the given array value'),
  binary('_contains', '@>', 'array', 'does the array contain the given value'),
];

/** The operators a column of this type offers, sorted by name as Hasura lists them. */
export function operatorsFor(type: ColumnType): ComparisonOperator[] {
  let operators: ComparisonOperator[];
  if (type.isArray) operators = [...ORDERING('array'), ...ARRAY, IS_NULL];
  else if (type.category === 'json') operators = [IS_NULL];
  // Hasura's `<t>_enum_comparison_exp`: equality and membership only.
  else if (type.category === 'enum') operators = [...EQUALITY('scalar'), ...MEMBERSHIP(), IS_NULL];
  else if (type.category === 'jsonb') operators = [...ORDERING('scalar'), ...MEMBERSHIP(), ...JSONB, IS_NULL];
  else if (type.category === 'string') operators = [...ORDERING('scalar'), ...MEMBERSHIP(), ...TEXT, IS_NULL];
  // Hasura offers a raster equality but no ordering.
  else if (isExtensionType(type)) {
    const spell = operatorInSchema(type.typeSchema);
    operators = [...(type.category === 'raster' ? EQUALITY('scalar', spell) : ORDERING('scalar', spell)), ...MEMBERSHIP(spell), IS_NULL, ...extensionOperators(type)];
  } else operators = [...ORDERING('scalar'), ...MEMBERSHIP(), IS_NULL];
  return operators.sort((a, b) => (a.name < b.name ? -1 : 1));
}

const OPERATOR_TABLES = new Map<string, Map<string, ComparisonOperator>>();

export function operatorNamed(type: ColumnType, name: string): ComparisonOperator | undefined {
  // An extension's operators name its schema.
  const key = `${type.isArray}/${type.category}/${type.typeSchema}`;
  let table = OPERATOR_TABLES.get(key);
  if (table === undefined) {
    table = new Map(operatorsFor(type).map((operator) => [operator.name, operator]));
    OPERATOR_TABLES.set(key, table);
  }
  return table.get(name);
}
