import { errors } from '../../../src/errors/errors.js';
import { Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import { SESSION_VARIABLE_PREFIX } from '../../../src/session/session.js';
import { encodeValue, type ParamEncoding, type ParamList, type ParamSource } from './params.js';

/**
 * One input value the compiler reads: part of the GraphQL document (possibly a
 * `$variable`), part of a variable's value, or part of a permission filter from the
 * metadata (where strings naming `x-service-*` session variables are late-bound).
 */
export type Input =
  | { source: 'document'; node: ValueNode; path: string }
  | { source: 'variable'; value: unknown; path: string }
  | { source: 'permission'; value: unknown; path: string };

/**
 * How a compiled plan depends on one variable. A plan is reused for another request
 * when every recorded use agrees: `value` uses only need the same nullness (the value is
 * a parameter) and, for a `limit` or `offset` (`count`), a value the compiler would
 * accept, so a negative one is refused as the compiler refuses it; `structural` uses
 * (an object, list, enum or boolean that shapes the SQL) need the same value.
 */
export type VariableUse = { kind: 'value'; isNull: boolean; count?: true } | { kind: 'structural'; json: string };

export function documentInput(node: ValueNode, path: string): Input {
  return { source: 'document', node, path };
}

export function permissionInput(value: unknown, path: string): Input {
  return { source: 'permission', value, path };
}

export class InputReader {
  readonly uses = new Map<string, VariableUse>();

  constructor(private readonly variables: Record<string, unknown>) {}

  isNull(input: Input): boolean {
    if (input.source !== 'document') return input.value === null || input.value === undefined;
    if (input.node.kind === Kind.VARIABLE) {
      const name = input.node.name.value;
      const isNull = this.variables[name] === undefined || this.variables[name] === null;
      const previous = this.uses.get(name);
      if (previous?.kind !== 'structural') this.uses.set(name, { ...previous, kind: 'value', isNull });
      return isNull;
    }
    return input.node.kind === Kind.NULL;
  }

  /** The fields of an input object, in the order written. */
  fields(input: Input): Array<[string, Input]> {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      invariant(resolved.node.kind === Kind.OBJECT, 'validated input is an object');
      return resolved.node.fields.map((field) => [field.name.value, documentInput(field.value, `${input.path}.${field.name.value}`)]);
    }
    const value = resolved.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw errors.unexpectedValue(input.path, 'an object', describe(value));
    }
    return Object.entries(value).map(([key, item]) => [key, { source: resolved.source, value: item, path: `${input.path}.${key}` }]);
  }

  /** The items of a list; a single value stands for a list of one (GraphQL input coercion). */
  items(input: Input): Input[] {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      if (resolved.node.kind !== Kind.LIST) return [resolved];
      return resolved.node.values.map((node, index) => documentInput(node, `${input.path}[${index}]`));
    }
    if (!Array.isArray(resolved.value)) return [resolved];
    return resolved.value.map((value, index) => ({ source: resolved.source, value, path: `${input.path}[${index}]` }));
  }

  /** An enum value or string that decides the SQL text (an order direction, a column name). */
  name(input: Input): string {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      const node = resolved.node;
      invariant(node.kind === Kind.ENUM || node.kind === Kind.STRING, 'validated input is an enum value or string');
      return node.value;
    }
    if (typeof resolved.value !== 'string') throw errors.unexpectedValue(input.path, 'a string', describe(resolved.value));
    return resolved.value;
  }

  /** A boolean that decides the SQL text (`_is_null`, `distinct`, `@include(if:)`). */
  boolean(input: Input): boolean {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      invariant(resolved.node.kind === Kind.BOOLEAN, 'validated input is a boolean');
      return resolved.node.value;
    }
    if (typeof resolved.value !== 'boolean') throw errors.unexpectedValue(input.path, 'a boolean', describe(resolved.value));
    return resolved.value;
  }

  /**
   * A parameter placeholder for a value. A `$variable` in the document stays a variable
   * parameter, so the plan serves every value of it; a session variable named in a
   * permission is bound per request; anything else is a constant of the plan.
   */
  param(input: Input, params: ParamList, sqlType: string, encoding: ParamEncoding, typeName: string): string {
    return params.add(this.source(input, encoding, typeName), sqlType);
  }

  /**
   * A `limit` or `offset`: a non-negative integer, refused before any SQL otherwise, as
   * Hasura does. A `$variable` stays a parameter; its use is marked so that a plan is not
   * reused for a value it would refuse. A string literal is read as Hasura v2 reads
   * `offset: "10"` (the validation let only a decimal integer through).
   */
  count(input: Input, params: ParamList): string {
    if (input.source === 'document' && input.node.kind === Kind.VARIABLE) {
      const name = input.node.name.value;
      const previous = this.uses.get(name);
      if (previous?.kind !== 'structural') this.uses.set(name, { kind: 'value', isNull: false, count: true });
      checkCount(this.variables[name], input.path);
      return params.add({ kind: 'variable', name, encoding: 'plain' }, 'int4');
    }
    // A literal keeps its text as other literals do (documentValue).
    const value = input.source !== 'document' ? input.value : input.node.kind === Kind.INT || input.node.kind === Kind.STRING ? input.node.value : null;
    checkCount(typeof value === 'string' ? Number(value) : value, input.path);
    return params.add({ kind: 'constant', value }, 'int4');
  }

  /** Where a parameter's value comes from: a variable, a session variable, or a constant of the plan. */
  source(input: Input, encoding: ParamEncoding, typeName: string): ParamSource {
    if (this.isNull(input)) throw errors.unexpectedNull(input.path, typeName);
    if (input.source === 'document' && input.node.kind === Kind.VARIABLE) return { kind: 'variable', name: input.node.name.value, encoding };
    if (input.source === 'permission' && typeof input.value === 'string' && isSessionVariable(input.value)) return { kind: 'session', name: input.value.toLowerCase() };
    const value = input.source !== 'document'
      ? encodeValue(input.value, encoding)
      : containsVariable(input.node)
        ? encodeValue(this.substitute(input.node), encoding)
        : documentValue(input.node, encoding);
    return { kind: 'constant', value };
  }

  /** A list or object literal holding variables (`_in: [$a, $b]`): its value, a structural use of each. */
  private substitute(node: ValueNode): unknown {
    return valueFromASTUntyped(node, Object.fromEntries([...variableNames(node)].map((name) => [name, this.pin(name)])));
  }

  /** Makes the variable's whole value part of the plan's shape (see VariableUse) and returns it. */
  pin(name: string): unknown {
    const value = this.variables[name] ?? null;
    this.uses.set(name, { kind: 'structural', json: JSON.stringify(value) });
    return value;
  }

  private resolve(input: Input): Input {
    if (input.source !== 'document' || input.node.kind !== Kind.VARIABLE) return input;
    return { source: 'variable', value: this.pin(input.node.name.value), path: input.path };
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function checkCount(value: unknown, path: string): void {
  invariant(typeof value === 'number' && Number.isInteger(value), 'limit and offset are validated as Int');
  if (!isCount(value)) throw errors.negativeValue(path);
}

function isSessionVariable(value: string): boolean {
  return value.toLowerCase().startsWith(SESSION_VARIABLE_PREFIX);
}

/** Whether a plan compiled with `uses` also serves a request with these variables. */
export function usesMatch(uses: ReadonlyMap<string, VariableUse>, variables: Record<string, unknown>): boolean {
  for (const [name, use] of uses) {
    const value = variables[name];
    if (use.kind === 'value') {
      if ((value === undefined || value === null) !== use.isNull) return false;
      if (use.count === true && !isCount(value)) return false;
    } else if (JSON.stringify(value ?? null) !== use.json) {
      return false;
    }
  }
  return true;
}

/**
 * The parameter value of a literal. Numbers keep their text, so a `bigint` or `numeric`
 * literal reaches Postgres without passing through a JS double.
 */
function documentValue(node: ValueNode, encoding: ParamEncoding): unknown {
  if (encoding === 'json') return jsonText(node);
  if (encoding === 'json-list') return node.kind === Kind.LIST ? node.values.map(jsonText) : [jsonText(node)];
  return plainValue(node);
}

function plainValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(plainValue);
    case Kind.OBJECT:
      return JSON.parse(jsonText(node)) as unknown;
    case Kind.VARIABLE:
      invariant(false, 'variables inside literals are resolved before binding');
  }
}

function jsonText(node: ValueNode): string {
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return node.value;
    case Kind.STRING:
    case Kind.ENUM:
      return JSON.stringify(node.value);
    case Kind.BOOLEAN:
      return String(node.value);
    case Kind.NULL:
      return 'null';
    case Kind.LIST:
      return `[${node.values.map(jsonText).join(',')}]`;
    case Kind.OBJECT:
      return `{${node.fields.map((field) => `${JSON.stringify(field.name.value)}:${jsonText(field.value)}`).join(',')}}`;
    case Kind.VARIABLE:
      invariant(false, 'a variable inside a JSON literal is not a value');
  }
}

function containsVariable(node: ValueNode): boolean {
  return variableNames(node).size > 0;
}

function variableNames(node: ValueNode, into = new Set<string>()): Set<string> {
  if (node.kind === Kind.VARIABLE) into.add(node.name.value);
  else if (node.kind === Kind.LIST) for (const item of node.values) variableNames(item, into);
  else if (node.kind === Kind.OBJECT) for (const field of node.fields) variableNames(field.value, into);
  return into;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
