import type { QualifiedName } from '../../metadata/types.js';

/** A function or table as Hasura names it in messages: bare in `public`, else `schema.name`. */
export function displayName(name: QualifiedName): string {
  return name.schema === 'public' ? name.name : `${name.schema}.${name.name}`;
}

export function quoted(name: QualifiedName): string {
  return JSON.stringify(displayName(name));
}

/** Hasura's `makeReasonMessage`: one reason inline, several as a bulleted list. */
export function reasonMessage(reasons: readonly string[]): string {
  if (reasons.length === 1) return `because ${reasons[0]}`;
  return `for the following reasons:\n${reasons.map((reason) => `  • ${reason}\n`).join('')}`;
}


/** `no such function exists in postgres : "f"` / the overloading refusal (compat-facts 6.3). */
export function missingFunction(fn: QualifiedName): string {
  return `no such function exists in postgres : ${quoted(fn)}`;
}

export function overloadedFunction(fn: QualifiedName): string {
  return `function ${quoted(fn)} is overloaded. Overloaded functions are not supported`;
}
