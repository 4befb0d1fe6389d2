import { quoted } from '../../metadata/names.js';
import type { QualifiedName } from '../../metadata/types.js';

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
