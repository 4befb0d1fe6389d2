import { isGraphqlName } from '../../../src/graphql/name.js';
import type { CatalogColumn } from '../../../src/pg/catalog.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';

/**
 * How a Postgres column type appears in GraphQL and in SQL casts, mapped as Hasura maps
 * it: `int4` is `Int`, `float4` is `Float`, `text`/`varchar` are `String`, `bool` is
 * `Boolean`; every other type keeps its Postgres name as a custom scalar (`bigint` for
 * `int8` through its SQL name, `numeric`, `uuid`, `timestamptz`, `jsonb`, enum types ...).
 * Arrays are lists of their element's scalar (`[Int!]`), as Hasura v2 shows them.
 */
export type TypeCategory = 'numeric' | 'string' | 'boolean' | 'json' | 'jsonb' | 'datetime' | 'enum' | ExtensionCategory | 'other';

/**
 * Types of extensions with operators of their own (`ltree`, PostGIS' `geometry`,
 * `geography` and `raster`). They are known by name in whatever schema the extension was
 * installed into; the engine installs nothing.
 */
export type ExtensionCategory = 'ltree' | 'geometry' | 'geography' | 'raster';
const EXTENSION_CATEGORIES: Record<string, ExtensionCategory> = { ltree: 'ltree', geometry: 'geometry', geography: 'geography', raster: 'raster' };

/** Extension types whose GraphQL scalar is their bare name wherever they live, as Hasura names them. */
const EXTENSION_SCALARS = new Set(['ltree', 'lquery', 'ltxtquery', 'geometry', 'geography', 'raster']);

/**
 * A column that references an enum table (`is_enum`) by a single-column foreign key to
 * its primary key: GraphQL shows it as the enum `<enum table>_enum` (enum-tables.ts).
 */
export interface EnumReference {
  /** `<enum table's GraphQL name>_enum`. */
  typeName: string;
  /** The enum table's rows, sorted by value: the enum's values and their descriptions (the `comment` column). */
  values: ReadonlyArray<{ name: string; description: string | null }>;
}

export interface ColumnType {
  /** GraphQL scalar of the value, or of one element for an array column. */
  scalar: string;
  isArray: boolean;
  /** SQL type parameters are cast to when compared with the column. */
  sqlType: string;
  /** SQL type of one element: the column's own type, or its element type for arrays. */
  elementSqlType: string;
  /** Schema of the (element) type: an extension's functions and operators live there too. */
  typeSchema: string;
  category: TypeCategory;
  /** Set when the column references an enum table; `scalar` is then the enum's name. */
  enumOf?: EnumReference;
}

const BUILT_IN_SCALARS: Record<string, string> = {
  int4: 'Int',
  float4: 'Float',
  text: 'String',
  varchar: 'String',
  bool: 'Boolean',
  // Hasura names these after their SQL spelling rather than the internal `typname`.
  int2: 'smallint',
  int8: 'bigint',
  bpchar: 'bpchar',
};

const CATEGORIES: Record<string, TypeCategory> = {
  int2: 'numeric', int4: 'numeric', int8: 'numeric', float4: 'numeric', float8: 'numeric', numeric: 'numeric', money: 'numeric',
  text: 'string', varchar: 'string', bpchar: 'string', citext: 'string', name: 'string',
  bool: 'boolean',
  json: 'json',
  jsonb: 'jsonb',
  date: 'datetime', time: 'datetime', timetz: 'datetime', timestamp: 'datetime', timestamptz: 'datetime', interval: 'datetime',
};

/** `Int`: what a count is compared as (the predicate of an aggregate filter). */
export const INT_TYPE: ColumnType = { scalar: 'Int', isArray: false, sqlType: 'int4', elementSqlType: 'int4', typeSchema: 'pg_catalog', category: 'numeric' };

const PLAIN_SQL_NAME = /^[a-z_][a-z0-9_]*$/;

/** The column's GraphQL/SQL typing, or null for types GraphQL cannot carry (composites, odd names). */
export function columnTypeOf(column: CatalogColumn): ColumnType | null {
  if (column.typeKind === 'c' || column.typeKind === 'p') return null;
  const isArray = column.elementUdtName !== null;
  const elementName = column.elementUdtName ?? column.udtName;
  const scalar = scalarName(elementName, column.typeSchema);
  if (!isGraphqlName(scalar)) return null;
  return {
    scalar,
    isArray,
    sqlType: sqlTypeName(column.typeSchema, column.udtName),
    elementSqlType: sqlTypeName(column.typeSchema, elementName),
    typeSchema: column.typeSchema,
    category: isArray ? 'other' : (CATEGORIES[elementName] ?? EXTENSION_CATEGORIES[elementName] ?? 'other'),
  };
}

/** Another type of the same extension, e.g. `geography` for a `geometry` column's `_cast`, or `lquery` for `ltree`'s `_matches`. */
export function siblingType(type: ColumnType, name: string): ColumnType {
  return {
    scalar: name,
    isArray: false,
    sqlType: sqlTypeName(type.typeSchema, name),
    elementSqlType: sqlTypeName(type.typeSchema, name),
    typeSchema: type.typeSchema,
    category: EXTENSION_CATEGORIES[name] ?? 'other',
  };
}

function scalarName(typeName: string, schema: string): string {
  const builtIn = BUILT_IN_SCALARS[typeName];
  if (builtIn !== undefined) return builtIn;
  if (EXTENSION_SCALARS.has(typeName)) return typeName;
  return schema === 'pg_catalog' || schema === 'public' ? typeName : `${schema}_${typeName}`;
}

/** Built-in types print bare (`int4`) so compiled SQL stays readable; the rest are quoted. */
function sqlTypeName(schema: string, name: string): string {
  if (schema === 'pg_catalog' && PLAIN_SQL_NAME.test(name)) return name;
  return schema === 'pg_catalog' ? quoteIdent(name) : qualified(schema, name);
}

/** A type of an extension with operators of its own. */
export function isExtensionType(type: ColumnType): type is ColumnType & { category: ExtensionCategory } {
  return type.category in EXTENSION_CATEGORIES;
}

/** The type of a column that references an enum table: the enum in GraphQL, its own SQL type in SQL. */
export function enumColumnType(type: ColumnType, reference: EnumReference): ColumnType {
  return { ...type, scalar: reference.typeName, category: 'enum', enumOf: reference };
}

/** Types with `sum`, `avg`, `stddev`... (Hasura's numeric aggregate fields). */
export function isNumeric(type: ColumnType): boolean {
  return type.category === 'numeric';
}

/** Types with `min` and `max`: numbers, strings, dates and times. */
export function isComparable(type: ColumnType): boolean {
  return type.category === 'numeric' || type.category === 'string' || type.category === 'datetime';
}
