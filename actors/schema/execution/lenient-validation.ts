import {
  getNullableType,
  GraphQLError,
  isListType,
  isNonNullType,
  Kind,
  KnownTypeNamesRule,
  NoUnusedVariablesRule,
  specifiedRules,
  typeFromAST,
  validate,
  ValuesOfCorrectTypeRule,
  VariablesInAllowedPositionRule,
  visit,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type GraphQLType,
  type StringValueNode,
  type ValidationContext,
  type ValidationRule,
  type VariableDefinitionNode,
} from 'graphql';
import { KnownTypeNamesByLookupRule } from './known-type-names.js';
import { pathOf } from './validation-errors.js';

/**
 * A variable used where Hasura's looser rule let it through but the position wants
 * non-null list items: its value must still hold no null there (checked per request).
 */
export interface NullableItemsUse {
  variable: string;
  /** The type the position expects. */
  type: GraphQLInputType;
  /** The Hasura-style path of the use, for the refusal. */
  path: string;
}

export interface LenientFacts {
  nullableItems: NullableItemsUse[];
  /** Variables given as an `offset`, whose value may be an integer written as a string. */
  offsetVariables: Set<string>;
}

const REPLACED: ReadonlySet<ValidationRule> = new Set([NoUnusedVariablesRule, VariablesInAllowedPositionRule, ValuesOfCorrectTypeRule]);

/**
 * graphql-js' rules but those replaced, in graphql-js' order (errors are reported in it),
 * with type names looked up one by one (known-type-names.ts) so that a role's lazy schema is
 * not made whole to validate a request.
 */
const GRAPHQL_RULES: readonly ValidationRule[] = specifiedRules.filter((rule) => !REPLACED.has(rule)).map((rule) => (rule === KnownTypeNamesRule ? KnownTypeNamesByLookupRule : rule));

/**
 * graphql-js validation loosened where Hasura v2 is looser and its users depend on it:
 * a declared variable the operation does not use is fine; a variable's list items may
 * be nullable where the position wants non-null items (Hasura compares list item types
 * without their nullability); `offset` takes an integer written as a string.
 */
export function validateLeniently(schema: GraphQLSchema, document: DocumentNode): { problems: readonly GraphQLError[]; facts: LenientFacts } {
  const facts: LenientFacts = { nullableItems: [], offsetVariables: new Set() };
  const offsetStrings = new Set<StringValueNode>();
  visit(document, {
    Argument(node) {
      if (node.name.value !== 'offset') return;
      if (node.value.kind === Kind.VARIABLE) facts.offsetVariables.add(node.value.name.value);
      else if (node.value.kind === Kind.STRING && isInt32Text(node.value.value)) offsetStrings.add(node.value);
    },
  });
  const rules = [...GRAPHQL_RULES, hasuraVariablePositions(document, facts), valuesAllowingOffsetStrings(offsetStrings)];
  return { problems: validate(schema, document, rules), facts };
}

/** An integer within GraphQL's 32 bits written as a string, as Hasura v2 takes for `offset`. */
export function isInt32Text(text: string): boolean {
  if (!/^-?\d{1,10}$/.test(text)) return false;
  const value = Number(text);
  return value >= -(2 ** 31) && value < 2 ** 31;
}

function valuesAllowingOffsetStrings(offsetStrings: ReadonlySet<StringValueNode>): ValidationRule {
  return (context) => {
    const filtered = Object.create(context, {
      reportError: {
        value: (error: GraphQLError) => {
          if (error.nodes?.length === 1 && offsetStrings.has(error.nodes[0] as StringValueNode)) return;
          context.reportError(error);
        },
      },
    }) as ValidationContext;
    return ValuesOfCorrectTypeRule(filtered);
  };
}

/**
 * Hasura's rule (spec 5.8.5 with list items compared without their nullability): a
 * nullable variable at a non-null position only with a default on either side. The
 * message is graphql-js' own, which validation-errors.ts words as Hasura does.
 */
function hasuraVariablePositions(document: DocumentNode, facts: LenientFacts): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const definitions = new Map<string, VariableDefinitionNode>();
      for (const definition of operation.variableDefinitions ?? []) definitions.set(definition.variable.name.value, definition);
      for (const { node, type, defaultValue } of context.getRecursiveVariableUsages(operation)) {
        const definition = definitions.get(node.name.value);
        if (definition === undefined || type === undefined || type === null) continue;
        const declared = typeFromAST(context.getSchema(), definition.type);
        if (declared === undefined) continue;
        const hasDefault = (definition.defaultValue !== undefined && definition.defaultValue.kind !== Kind.NULL) || defaultValue !== undefined;
        if (!usageAllowed(type, declared, hasDefault)) {
          context.reportError(new GraphQLError(`Variable "$${node.name.value}" of type "${String(declared)}" used in position expecting type "${String(type)}".`, { nodes: [definition, node] }));
        } else if (itemsLooser(type, declared)) {
          facts.nullableItems.push({ variable: node.name.value, type, path: pathOf(document, node) ?? '$' });
        }
      }
    },
  });
}

function usageAllowed(location: GraphQLType, declared: GraphQLType, hasDefault: boolean): boolean {
  if (isNonNullType(location) && !isNonNullType(declared) && !hasDefault) return false;
  return sameIgnoringNullability(location, declared);
}

function sameIgnoringNullability(location: GraphQLType, declared: GraphQLType): boolean {
  const a = isNonNullType(location) ? location.ofType : location;
  const b = isNonNullType(declared) ? declared.ofType : declared;
  if (isListType(a) && isListType(b)) return sameIgnoringNullability(a.ofType, b.ofType);
  if (isListType(a) || isListType(b)) return false;
  return a === b;
}

/** Whether the declared type lets a list's items be null where the position wants them non-null. */
function itemsLooser(location: GraphQLType, declared: GraphQLType): boolean {
  const a = isNonNullType(location) ? location.ofType : location;
  const b = isNonNullType(declared) ? declared.ofType : declared;
  if (!isListType(a) || !isListType(b)) return false;
  return (isNonNullType(a.ofType) && !isNonNullType(b.ofType)) || itemsLooser(a.ofType, b.ofType);
}

/** The path of the first null item the position's type refuses, or null when there is none. */
export function refusedNullItem(value: unknown, type: GraphQLType, path: string): { path: string; type: string } | null {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (!isListType(inner) || !Array.isArray(value)) return null;
  for (const [index, item] of value.entries()) {
    const itemPath = `${path}[${index}]`;
    if (item === null || item === undefined) {
      if (isNonNullType(inner.ofType)) return { path: itemPath, type: String(getNullableType(inner.ofType)) };
      continue;
    }
    const found = refusedNullItem(item, inner.ofType, itemPath);
    if (found !== null) return found;
  }
  return null;
}
