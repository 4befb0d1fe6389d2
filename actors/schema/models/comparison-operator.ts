/** What an operator of `<type>_comparison_exp` takes (operators.ts lists the operators). */
export type OperandKind =
  /** The column's own scalar (`_eq: Int`). */
  | 'scalar'
  /** A list of the column's scalar (`_in: [Int!]`). */
  | 'scalar-list'
  /** A whole array value, for array columns (`_contains: [Int!]`). */
  | 'array'
  | 'string'
  | 'string-list'
  /** `_is_null`: decides the SQL text rather than being a parameter. */
  | 'boolean'
  /** `ltree`'s patterns: `_matches: lquery`, `_matches_any: [String!]` (lquery[]), `_matches_fulltext: ltxtquery`. */
  | 'lquery'
  | 'lquery-list'
  | 'ltxtquery'
  /** PostGIS input objects: `st_d_within_input`, `st_d_within_geography_input`, `st_intersects_nband_geom_input`, `st_intersects_geom_nband_input`. */
  | 'd-within'
  | 'd-within-geography'
  | 'nband-geom'
  | 'geom-nband'
  /** `_cast: {geography: geography_comparison_exp}`: a comparison of the converted column. */
  | 'cast';

/** One comparison operator: its name, its operand, the SQL it becomes. */
export interface ComparisonOperator {
  name: string;
  operand: OperandKind;
  render(column: string, operand: string): string;
  description?: string;
}
