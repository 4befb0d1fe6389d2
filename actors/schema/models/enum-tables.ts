import { isGraphqlName } from '../../../src/graphql/name.js';
import { quoted } from '../../../src/metadata/names.js';
import type { QualifiedName } from '../../../src/metadata/types.js';
import type { CatalogColumn, CatalogRelation } from '../../../src/pg/catalog.js';
import type { EnumReference } from './column-types.js';

/**
 * Enum tables (`is_enum`, Hasura's Note on enum tables): a table of one text primary key
 * and optionally one text comment column whose rows become the values of a GraphQL enum.
 * The rows are read from the database when the metadata is checked (consistency/enum-rows.ts),
 * so that building the model stays synchronous; these rules judge them.
 */
export interface EnumRow {
  value: string;
  comment: string | null;
}

/** What reading an enum table gave: its rows, or the database's complaint. */
export type EnumRowsRead = { rows: EnumRow[] } | { error: string };

/** The rows of the tables the metadata marks `is_enum`, by `relationKey`. */
export type EnumTableRows = ReadonlyMap<string, EnumRowsRead>;

export const NO_ENUM_ROWS: EnumTableRows = new Map();

export interface EnumTableShape {
  primaryKey: string;
  comment: string | null;
}

/** Hasura takes `text` (and `varchar`, which Postgres treats alike) for both columns. */
const TEXTUAL = new Set(['text', 'varchar']);

/** The columns an enum table's rows are read from, or what keeps the table from being one. */
export function enumTableShape(relation: CatalogRelation): { shape: EnumTableShape | null; problems: string[] } {
  const problems: string[] = [];
  let primaryKey: CatalogColumn | null = null;
  if (relation.primaryKey.length === 0) problems.push('the table must have a primary key');
  else if (relation.primaryKey.length > 1) problems.push(`the table’s primary key must not span multiple columns (${[...relation.primaryKey].sort().join(', ')})`);
  else {
    const column = relation.columns.find((candidate) => candidate.name === relation.primaryKey[0])!;
    if (isTextual(column)) primaryKey = column;
    else problems.push(typeMismatch('primary key', column));
  }
  const others = relation.columns.filter((column) => column !== primaryKey);
  let comment: string | null = null;
  if (others.length === 1) {
    if (isTextual(others[0]!)) comment = others[0]!.name;
    else problems.push(typeMismatch('comment column', others[0]!));
  } else if (others.length > 1) {
    const names = others.map((column) => column.name).sort();
    problems.push(`the table must have exactly one primary key and optionally one comment column, not ${names.length} columns (${names.join(', ')})`);
  }
  return { shape: primaryKey === null || problems.length > 0 ? null : { primaryKey: primaryKey.name, comment }, problems };
}

/** Everything that keeps a table, with these rows, from being an enum; empty when it can be one. */
export function enumTableProblems(relation: CatalogRelation, read: EnumRowsRead | undefined): string[] {
  const { shape, problems } = enumTableShape(relation);
  if (shape === null || read === undefined) return problems;
  if ('error' in read) return [`postgres error: ${read.error}`];
  if (read.rows.length === 0) return ['the table must have at least one row'];
  const invalid = read.rows.map((row) => row.value).filter((value) => !isEnumValueName(value)).sort();
  if (invalid.length === 0) return [];
  const names = invalid.map((value) => JSON.stringify(value));
  if (names.length === 1) return [`the value ${names[0]} is not a valid GraphQL enum value name`];
  const listed = names.length === 2 ? `${names[0]} and ${names[1]}` : `${names.slice(0, -1).join(', ')}, and ${names.at(-1)}`;
  return [`the values ${listed} are not valid GraphQL enum value names`];
}

/** Hasura's message for a table that cannot be an enum (`constraint-violation`, or its inconsistency). */
export function enumTableReason(table: QualifiedName, problems: readonly string[]): string {
  const reasons = problems.length === 1 ? `because ${problems[0]}` : `for the following reasons:\n${problems.map((problem) => `  • ${problem}\n`).join('')}`;
  return `the table ${quoted(table)} cannot be used as an enum ${reasons}`;
}

/** The enum a valid enum table's rows make, named after the table's GraphQL name; values sorted as Hasura lists them. */
export function enumReference(tableTypeName: string, rows: readonly EnumRow[]): EnumReference {
  const values = rows.map((row) => ({ name: row.value, description: row.comment })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { typeName: `${tableTypeName}_enum`, values };
}

/** A GraphQL name other than the literals `true`, `false` and `null` (GraphQL spec, EnumValue). */
function isEnumValueName(value: string): boolean {
  return isGraphqlName(value) && value !== 'true' && value !== 'false' && value !== 'null';
}

function isTextual(column: CatalogColumn): boolean {
  return column.elementUdtName === null && column.typeSchema === 'pg_catalog' && TEXTUAL.has(column.udtName);
}

function typeMismatch(what: string, column: CatalogColumn): string {
  return `the table’s ${what} (${JSON.stringify(column.name)}) must have type "text", not type ${JSON.stringify(column.type)}`;
}
