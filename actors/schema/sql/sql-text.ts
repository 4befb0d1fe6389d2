import { createHash } from 'node:crypto';
import { invariant } from '../../../src/errors/service-error.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import type { QualifiedName } from '../../../src/metadata/types.js';
import { GRAPHQL_NAME } from '../../../src/graphql/name.js';

/**
 * Small pieces of SQL text shared by the compiler. Identifiers go through `quoteIdent`;
 * the only other text spliced in are GraphQL names used as JSON keys, which the GraphQL
 * grammar limits to `[_A-Za-z][_0-9A-Za-z]*` and so never need escaping. Values are
 * always parameters (see params.ts).
 */

/** A GraphQL name (response key, type name) as an SQL string literal. */
export function nameLiteral(name: string): string {
  invariant(GRAPHQL_NAME.test(name), `not a GraphQL name: ${JSON.stringify(name)}`);
  return `'${name}'`;
}

export function columnRef(alias: string, column: string): string {
  return `${quoteIdent(alias)}.${quoteIdent(column)}`;
}

export function tableRef(table: QualifiedName, alias: string): string {
  return `${qualified(table.schema, table.name)} as ${quoteIdent(alias)}`;
}

/** `json_build_object` takes at most 100 arguments (Postgres FUNC_MAX_ARGS). */
const MAX_PAIRS = 50;

/**
 * A JSON object with keys in the given order. Beyond 50 pairs the objects of each chunk
 * are joined as text, which keeps the key order that a jsonb `||` would lose.
 */
export function jsonObject(pairs: ReadonlyArray<readonly [string, string]>): string {
  const build = (chunk: ReadonlyArray<readonly [string, string]>) =>
    `json_build_object(${chunk.map(([key, value]) => `${nameLiteral(key)}, ${value}`).join(', ')})`;
  if (pairs.length <= MAX_PAIRS) return build(pairs);
  const chunks: string[] = [];
  for (let start = 0; start < pairs.length; start += MAX_PAIRS) chunks.push(build(pairs.slice(start, start + MAX_PAIRS)));
  const inner = chunks.map((chunk, index) => {
    const text = `${chunk}::text`;
    if (index === 0) return `left(${text}, -1)`;
    if (index === chunks.length - 1) return `substr(${text}, 2)`;
    return `substr(left(${text}, -1), 2)`;
  });
  return `(${inner.join(` || ', ' || `)})::json`;
}

export function and(conditions: readonly string[]): string {
  if (conditions.length === 0) return 'true';
  if (conditions.length === 1) return conditions[0]!;
  return conditions.map((condition) => `(${condition})`).join(' and ');
}

export function or(conditions: readonly string[]): string {
  if (conditions.length === 0) return 'false';
  if (conditions.length === 1) return conditions[0]!;
  return conditions.map((condition) => `(${condition})`).join(' or ');
}

/** Generates the table aliases of one statement: `_1`, `_2`... unique, so no scope shadows another. */
export class AliasGenerator {
  private next = 0;

  fresh(): string {
    this.next += 1;
    return `_${this.next}`;
  }
}

/** A prepared statement's name: a hash of its text, so one name never means two texts. */
export function statementName(sql: string): string {
  // Postgres truncates identifiers at 63 bytes; 'gql_' + 40 hex digits fits.
  return `gql_${createHash('sha1').update(sql).digest('hex')}`;
}
