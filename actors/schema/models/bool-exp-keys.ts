/**
 * Hasura reads a boolean expression written in JSON (a permission's `filter` or `check`,
 * the v1 data API's `where`) with two spellings of its keywords: the GraphQL one
 * (`_or`, `_eq`) and the older `$` one (`$or`, `$eq`) its first releases used, which
 * metadata written then still carries. Both mean the same; the metadata keeps the
 * spelling it was given (Hasura exports what it stored), so every reader of an
 * expression asks here for the meaning of a key.
 */

/** The connectives Hasura's GBoolExp parser takes in either spelling. */
const CONNECTIVES: ReadonlySet<string> = new Set(['and', 'or', 'not', 'exists']);

/** The column operators of Hasura's parseBoolExpOperations for PostgreSQL, each taken as `_x` or `$x`. */
const OPERATORS: ReadonlySet<string> = new Set([
  'cast', 'eq', 'ne', 'neq', 'in', 'nin', 'gt', 'lt', 'gte', 'lte',
  'like', 'nlike', 'ilike', 'nilike', 'similar', 'nsimilar', 'regex', 'iregex', 'nregex', 'niregex', 'is_null',
  'contains', 'contained_in', 'has_key', 'has_keys_any', 'has_keys_all', 'jsonb_path_exists', 'jsonb_path_match',
  'st_contains', 'st_crosses', 'st_equals', 'st_overlaps', 'st_touches', 'st_within', 'st_intersects', 'st_3d_intersects',
  'st_d_within', 'st_3d_d_within',
  'ceq', 'cne', 'cneq', 'cgt', 'clt', 'cgte', 'clte',
  'ancestor', 'ancestor_any', 'descendant', 'descendant_any', 'matches', 'matches_any', 'matches_fulltext',
]);

/** Hasura's other names of an operator: `_ne` is `_neq`. */
const SYNONYMS: Readonly<Record<string, string>> = { _ne: '_neq' };

/** `_or` for `$or` (and `_or`); any other key, a column or relationship name, as written. */
export function connectiveKey(key: string): string {
  return key.startsWith('$') && CONNECTIVES.has(key.slice(1)) ? `_${key.slice(1)}` : key;
}

/** `_eq` for `$eq` (and `_eq`), `_neq` for `_ne` and `$ne`; an unknown name as written. */
export function operatorKey(key: string): string {
  const underscored = key.startsWith('$') && OPERATORS.has(key.slice(1)) ? `_${key.slice(1)}` : key;
  return SYNONYMS[underscored] ?? underscored;
}
