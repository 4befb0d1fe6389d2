import type { QualifiedName } from './types.js';

/** A table or function as Hasura names it in messages: bare in `public`, else `schema.name`. */
export function displayName(name: QualifiedName): string {
  return name.schema === 'public' ? name.name : `${name.schema}.${name.name}`;
}

/** `displayName` in double quotes, as Hasura's messages quote names. */
export function quoted(name: QualifiedName): string {
  return JSON.stringify(displayName(name));
}

/** Table names in relationship definitions may be bare strings, meaning schema `public`. */
export function toQualified(table: QualifiedName | string): QualifiedName {
  return typeof table === 'string' ? { schema: 'public', name: table } : table;
}
