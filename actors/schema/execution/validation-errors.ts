import { Kind, type ASTNode, type DocumentNode, type GraphQLError, type SelectionSetNode, type ValueNode } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';

/**
 * graphql-js validation errors in Hasura's words and paths (compat-facts 8): Hasura
 * reports the first problem it meets, as `field 'x' not found in type: 'query_root'`
 * at `$.selectionSet.x`, `.args.<name>` for arguments.
 */
const REWRITES: Array<{ pattern: RegExp; message: (match: RegExpMatchArray) => string; path?: (path: string, match: RegExpMatchArray) => string }> = [
  { pattern: /^Cannot query field "([^"]+)" on type "([^"]+)"\./, message: (m) => `field '${m[1]}' not found in type: '${m[2]}'` },
  { pattern: /^Field "([^"]+)" is not defined by type "([^"]+)"\./, message: (m) => `field '${m[1]}' not found in type: '${m[2]}'` },
  // Hasura checks argument names before descending into `args`.
  { pattern: /^Unknown argument "([^"]+)" on field "(?:[^".]+\.)?([^"]+)"\./, message: (m) => `'${m[2]}' has no argument named '${m[1]}'`, path: (path) => path.replace(/\.args\.[^.]+$/, '') },
  { pattern: /^Field "(?:[^".]+\.)?([^"]+)" argument "([^"]+)" of type "[^"]+" is required, but it was not provided\./, message: (m) => `missing required field '${m[2]}'`, path: (path, m) => `${path}.args.${m[2]}` },
  { pattern: /^Field "[^"]+" of type "([^"]+)" must have a selection of subfields/, message: (m) => `missing selection set for '${m[1]!.replace(/[[\]!]/g, '')}'` },
  { pattern: /^Field "[^"]+" must not have a selection since type/, message: () => 'unexpected subselection set for non-object field' },
  { pattern: /^(?:Anonymous Subscription|Subscription "[^"]+") must select only one top level field\./, message: () => 'subscriptions must select one top level field', path: () => '$' },
  { pattern: /^(?:Anonymous Subscription|Subscription "[^"]+") must not select an introspection top level field\./, message: () => 'Introspection at root field level is not supported over subscriptions', path: () => '$' },
  {
    pattern: /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"\./,
    message: (m) => `variable '${m[1]}' is declared as '${m[2]}', but used where '${m[3]}' is expected`,
  },
];

export function hasuraValidationError(problems: readonly GraphQLError[], document: DocumentNode): ServiceError {
  const first = [...problems].sort((a, b) => position(a) - position(b))[0]!;
  // The first node inside the operation: a variable error also names the variable's definition.
  const path = (first.nodes ?? []).map((node) => pathOf(document, node)).find((found) => found !== null) ?? '$';
  const refusedValue = scalarRefusal(first);
  if (refusedValue !== null) return refusedValue.atPath(path);
  for (const rewrite of REWRITES) {
    const match = first.message.match(rewrite.pattern);
    if (match === null) continue;
    return errors.validationFailed(rewrite.path?.(path, match) ?? path, rewrite.message(match));
  }
  return errors.validationFailed(path, first.message);
}

/**
 * A scalar that checks its values (type-registry.ts) says what is wrong in its own words
 * and code; graphql-js wraps its complaint once for a literal, twice for a variable.
 */
export function scalarRefusal(error: GraphQLError): ServiceError | null {
  let cause: unknown = error.originalError;
  while (cause instanceof Error && !(cause instanceof ServiceError) && 'originalError' in cause) cause = cause.originalError;
  return cause instanceof ServiceError ? cause : null;
}

function position(error: GraphQLError): number {
  const location = error.locations?.[0];
  return location === undefined ? Number.MAX_SAFE_INTEGER : location.line * 1_000_000 + location.column;
}

/** The Hasura-style JSON path of `target` within its operation or fragment. */
export function pathOf(document: DocumentNode, target: ASTNode): string | null {
  for (const definition of document.definitions) {
    if (definition === target) return '$';
    if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) {
      const found = inSelectionSet(definition.selectionSet, '$', target);
      if (found !== null) return found;
    }
  }
  return null;
}

function inSelectionSet(selectionSet: SelectionSetNode, path: string, target: ASTNode): string | null {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (selection === target) return path;
      const found = inSelectionSet(selection.selectionSet, path, target);
      if (found !== null) return found;
      continue;
    }
    if (selection.kind !== Kind.FIELD) {
      if (selection === target) return path;
      continue;
    }
    const fieldPath = `${path}.selectionSet.${selection.name.value}`;
    if (selection === target || selection.selectionSet === target) return fieldPath;
    for (const argument of selection.arguments ?? []) {
      const argumentPath = `${fieldPath}.args.${argument.name.value}`;
      if (argument === target) return argumentPath;
      const found = inValue(argument.value, argumentPath, target);
      if (found !== null) return found;
    }
    if (selection.selectionSet !== undefined) {
      const found = inSelectionSet(selection.selectionSet, fieldPath, target);
      if (found !== null) return found;
    }
  }
  return null;
}

function inValue(value: ValueNode, path: string, target: ASTNode): string | null {
  if (value === target) return path;
  if (value.kind === Kind.OBJECT) {
    for (const field of value.fields) {
      const fieldPath = `${path}.${field.name.value}`;
      if (field === target) return fieldPath;
      const found = inValue(field.value, fieldPath, target);
      if (found !== null) return found;
    }
  } else if (value.kind === Kind.LIST) {
    for (const [index, item] of value.values.entries()) {
      const found = inValue(item, `${path}[${index}]`, target);
      if (found !== null) return found;
    }
  }
  return null;
}
