import type { QualifiedName } from '../metadata/types.js';

/**
 * What the function rules (rules/) tell about a tracked function or a computed field
 * once it passed them; the schema actor's models build fields and SQL calls from it.
 */
export interface SqlTypeRef {
  /** `pg_type.typname` (`int4`, `text`, `_int4`, `article`). */
  name: string;
  schema: string;
  /** `pg_type.typtype`: b base, c composite, d domain, e enum, p pseudo, r range. */
  kind: string;
  /** For arrays, the element's `typname`. */
  elementType: string | null;
}

/** An argument the caller gives in GraphQL, under `args`. */
export interface InputArgument {
  kind: 'input';
  /** The GraphQL name: the SQL name, or `arg_<n>` for the n-th unnamed one (Hasura). */
  name: string;
  /** The SQL name; null for an unnamed argument, which can only be passed by position. */
  sqlName: string | null;
  type: SqlTypeRef;
  hasDefault: boolean;
}

/**
 * One SQL argument of the function, in declaration order: given by the caller, filled
 * with the session variables as JSON, or (computed fields) the row of the table.
 */
export type ArgumentSlot = InputArgument | { kind: 'session'; sqlName: string; type: 'json' | 'jsonb' } | { kind: 'row'; sqlName: string | null };

export interface FunctionDescription {
  function: QualifiedName;
  /** i IMMUTABLE, s STABLE, v VOLATILE. */
  volatility: 'i' | 's' | 'v';
  /** Under which root the function is served (compat-facts 6.2, "Exposure"). */
  exposedAs: 'query' | 'mutation';
  /** The tracked table whose rows it returns. */
  returnTable: QualifiedName;
  /** SETOF rows, or a single row (a nullable object in GraphQL). */
  returnsSet: boolean;
  arguments: ArgumentSlot[];
  comment: string | null;
}

export type ComputedFieldReturn = { kind: 'scalar'; type: SqlTypeRef } | { kind: 'table'; table: QualifiedName; returnsSet: boolean };

export interface ComputedFieldDescription {
  name: string;
  table: QualifiedName;
  function: QualifiedName;
  returns: ComputedFieldReturn;
  arguments: ArgumentSlot[];
  comment: string | null;
}

/** A rule's verdict: the description, or the reason in Hasura's words (compat-facts 6.3). */
export type Verdict<T> = { ok: true; description: T } | { ok: false; reason: string };
