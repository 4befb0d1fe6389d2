import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import type { ColumnType, ExtensionCategory, TypeCategory } from './column-types.js';
import type { ComparisonOperator, OperandKind } from './comparison-operator.js';

/**
 * The operators of extension types, Hasura's names over the extension's own functions and
 * operators. Those are named in the schema the extension lives in (the type's schema),
 * so they are found whatever the connection's search_path.
 */
const call = (schema: string, fn: string) => (column: string, operand: string): string => `${qualified(schema, fn)}(${column}, ${operand})`;

function spatial(schema: string, name: string, fn: string, operand: OperandKind, description: string): ComparisonOperator {
  return { name, operand, render: call(schema, fn), description };
}

/** `OPERATOR("schema".@>)`: an operator of the extension, found whatever the search_path. */
export const operatorInSchema = (schema: string) => (sql: string): string => `OPERATOR(${quoteIdent(schema)}.${sql})`;

function ltreeOperator(schema: string, name: string, sql: string, operand: OperandKind, description: string): ComparisonOperator {
  const spelled = operatorInSchema(schema)(sql);
  return { name, operand, render: (column, value) => `${column} ${spelled} ${value}`, description };
}

const ltree = (schema: string): ComparisonOperator[] => [
  ltreeOperator(schema, '_ancestor', '@>', 'scalar', 'is the left argument an ancestor of right (or equal)?'),
  ltreeOperator(schema, '_ancestor_any', '@>', 'scalar-list', 'does array contain an ancestor of `ltree`?'),
  ltreeOperator(schema, '_descendant', '<@', 'scalar', 'is the left argument a descendant of right (or equal)?'),
  ltreeOperator(schema, '_descendant_any', '<@', 'scalar-list', 'does array contain a descendant of `ltree`?'),
  ltreeOperator(schema, '_matches', '~', 'lquery', 'does `ltree` match `lquery`?'),
  ltreeOperator(schema, '_matches_any', '?', 'lquery-list', 'does `ltree` match any `lquery` in array?'),
  ltreeOperator(schema, '_matches_fulltext', '@', 'ltxtquery', 'does `ltree` match `ltxtquery`?'),
];

const geometry = (schema: string): ComparisonOperator[] => [
  spatial(schema, '_st_3d_d_within', 'st_3ddwithin', 'd-within', 'is the column within a given 3D distance from the given geometry value'),
  spatial(schema, '_st_3d_intersects', 'st_3dintersects', 'scalar', 'does the column spatially intersect the given geometry value in 3D'),
  spatial(schema, '_st_contains', 'st_contains', 'scalar', 'does the column contain the given geometry value'),
  spatial(schema, '_st_crosses', 'st_crosses', 'scalar', 'does the column cross the given geometry value'),
  spatial(schema, '_st_d_within', 'st_dwithin', 'd-within', 'is the column within a given distance from the given geometry value'),
  spatial(schema, '_st_equals', 'st_equals', 'scalar', 'is the column equal to given geometry value (directionality is ignored)'),
  spatial(schema, '_st_intersects', 'st_intersects', 'scalar', 'does the column spatially intersect the given geometry value'),
  spatial(schema, '_st_overlaps', 'st_overlaps', 'scalar', "does the column 'spatially overlap' (intersect but not completely contain) the given geometry value"),
  spatial(schema, '_st_touches', 'st_touches', 'scalar', 'does the column have atleast one point in common with the given geometry value'),
  spatial(schema, '_st_within', 'st_within', 'scalar', 'is the column contained in the given geometry value'),
];

const geography = (schema: string): ComparisonOperator[] => [
  spatial(schema, '_st_d_within', 'st_dwithin', 'd-within-geography', 'is the column within a given distance from the given geography value'),
  spatial(schema, '_st_intersects', 'st_intersects', 'scalar', 'does the column spatially intersect the given geography value'),
];

/** Hasura gives these three no descriptions. */
const raster = (schema: string): ComparisonOperator[] => [
  { name: '_st_intersects_rast', operand: 'scalar', render: call(schema, 'st_intersects') },
  { name: '_st_intersects_nband_geom', operand: 'nband-geom', render: call(schema, 'st_intersects') },
  { name: '_st_intersects_geom_nband', operand: 'geom-nband', render: call(schema, 'st_intersects') },
];

/** `_cast: {geography: ...}` on geometry and back (Hasura's `<type>_cast_exp`); it decides the SQL, not a parameter. */
const CAST: ComparisonOperator = { name: '_cast', operand: 'cast', render: () => '' };

const OWN_OPERATORS: Record<ExtensionCategory, (schema: string) => ComparisonOperator[]> = {
  ltree,
  geometry: (schema) => [CAST, ...geometry(schema)],
  geography: (schema) => [CAST, ...geography(schema)],
  raster,
};

export function extensionOperators(type: ColumnType & { category: ExtensionCategory }): ComparisonOperator[] {
  return OWN_OPERATORS[type.category](type.typeSchema);
}

/** The type a `_cast` field converts a column to: geometry and geography convert into each other. */
export const CAST_TARGETS: Partial<Record<TypeCategory, string>> = { geometry: 'geography', geography: 'geometry' };

/** The operators whose operand is an input object, and that object's GraphQL type (Hasura's names). */
export type ObjectOperand = Extract<OperandKind, 'd-within' | 'd-within-geography' | 'nband-geom' | 'geom-nband'>;

export const OBJECT_OPERAND_TYPE_NAMES: Record<ObjectOperand, string> = {
  'd-within': 'st_d_within_input',
  'd-within-geography': 'st_d_within_geography_input',
  'nband-geom': 'st_intersects_nband_geom_input',
  'geom-nband': 'st_intersects_geom_nband_input',
};

export function isObjectOperand(operand: OperandKind): operand is ObjectOperand {
  return operand in OBJECT_OPERAND_TYPE_NAMES;
}
