import { repeatedNames } from '../../../src/metadata/duplicates.js';
import { Kind, parse } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import type { AllowlistEntry, AllowlistScope, ListedQuery, Metadata, QueryCollectionEntry } from '../../../src/metadata/types.js';

/**
 * What Hasura's JSON parsing of query collections and allowlist entries refuses
 * (QueryCollection.hs, Allowlist.hs, Metadata.hs), with its messages and paths, shared by
 * the operations and replace_metadata.
 */

/** A listed query must be an executable GraphQL document (GQLQueryWithText's parser). */
export function checkQueryText(query: string, path: string): void {
  let executable: boolean;
  try {
    executable = parse(query, { noLocation: true }).definitions.every(
      (definition) => definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION,
    );
  } catch {
    executable = false;
  }
  if (!executable) throw errors.parseFailed(path, 'parsing the graphql query failed');
}

/** Every query of a collection's definition parses (checked as its JSON is read, before anything else). */
export function checkQueryTexts(queries: readonly ListedQuery[], path: string): void {
  queries.forEach((query, index) => checkQueryText(query.query, `${path}.queries[${index}].query`));
}

/** No two queries of a collection share a name (create_query_collection's second step). */
export function checkQueryNames(queries: readonly ListedQuery[], path: string): void {
  const repeated = repeatedNames(queries.map((query) => query.name));
  if (repeated.length > 0) throw errors.notSupported(`${path}.queries`, `found duplicate query names ${repeated.map(quote).join(', ')}`);
}

/** Allowlist.hs' AllowlistScope parser: `global` true without roles, or false with distinct roles. */
export function checkScope(scope: AllowlistScope, path: string): AllowlistScope {
  if (scope.global) {
    if (scope.roles !== undefined) throw errors.parseFailed(path, 'roles are not allowed when global is true');
    return { global: true };
  }
  if (scope.roles === undefined) throw errors.parseFailed(path, 'key "roles" not found');
  if (scope.roles.length === 0) throw errors.parseFailed(`${path}.roles`, 'parsing NonEmpty failed, unexpected empty list');
  if (repeatedNames(scope.roles).length > 0) throw errors.parseFailed(path, 'duplicate roles are not allowed');
  return { global: false, roles: scope.roles };
}

export const collectionMissing = (name: string): string => `query collection with name ${quote(name)} does not exist`;

/**
 * replace_metadata (names declared twice are refused before, with every other kind's): queries and scopes
 * well-formed, and every allowlist entry naming a collection of the same metadata (Hasura
 * would silently admit nothing for it; here it is refused, so a typo cannot pass unseen).
 */
export function checkCollectionsAndAllowlist(metadata: Metadata, path: string): void {
  const collections = metadata.query_collections ?? [];
  const allowlist = metadata.allowlist ?? [];
  collections.forEach((entry: QueryCollectionEntry, index) => {
    const at = `${path}.query_collections[${index}].definition`;
    checkQueryTexts(entry.definition.queries, at);
    checkQueryNames(entry.definition.queries, at);
  });
  const names = new Set(collections.map((entry) => entry.name));
  allowlist.forEach((entry: AllowlistEntry, index) => {
    const at = `${path}.allowlist[${index}]`;
    if (entry.scope !== undefined) checkScope(entry.scope, `${at}.scope`);
    if (!names.has(entry.collection)) throw errors.notExists(`${at}.collection`, collectionMissing(entry.collection));
  });
}

const quote = (name: string): string => JSON.stringify(name);
