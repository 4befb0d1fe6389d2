import { errors } from '../../../src/errors/errors.js';
import { Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import { SESSION_VARIABLE_PREFIX } from '../../../src/session/session.js';
import { encodeValue, valueAt, type ParamEncoding, type ParamList, type ParamSource } from './params.js';

/**
 * One input value the compiler reads: part of the GraphQL document (possibly a
 * `$variable`), part of a variable's value (`place` says where in which variable; a data
 * API argument has none and is a constant of its statement), or part of a permission filter from the metadata (where strings naming `x-service-*`
 * session variables are late-bound).
 */
export type Input =
  | { source: 'document'; node: ValueNode; path: string }
  | { source: 'variable'; value: unknown; path: string; place?: VariablePlace }
  | { source: 'permission'; value: unknown; path: string };

/** A value inside a variable: the variable's name and the keys and indexes leading to it. */
export interface VariablePlace {
  name: string;
  at: ReadonlyArray<string | number>;
}

/**
 * What a compiled plan assumed about a variable's value, checked before the plan serves
 * another request: whether the value (or a part of it) is null, which keys an object has
 * in which order, how many items a list has, or the exact value of a part that is written
 * into the SQL text (an enum, a boolean, a LIMIT). Values read as parameters are not
 * assumed, so a `where: $w` plan serves every `$w` of the same shape (ARCHITECTURE decision 5).
 */
export interface Probe {
  kind: 'null' | 'keys' | 'items' | 'exact';
  at: ReadonlyArray<string | number>;
  answer: string;
}

/** A variable's probes, by kind and place. */
export type VariableUse = ReadonlyMap<string, Probe>;

export function documentInput(node: ValueNode, path: string): Input {
  return { source: 'document', node, path };
}

export function permissionInput(value: unknown, path: string): Input {
  return { source: 'permission', value, path };
}

export class InputReader {
  readonly uses = new Map<string, Map<string, Probe>>();

  constructor(private readonly variables: Record<string, unknown>) {}

  isNull(input: Input): boolean {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') return resolved.node.kind === Kind.NULL;
    this.probe(resolved, 'null');
    return resolved.value === null || resolved.value === undefined;
  }

  /** The fields of an input object, in the order written. */
  fields(input: Input): Array<[string, Input]> {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      invariant(resolved.node.kind === Kind.OBJECT, 'validated input is an object');
      return resolved.node.fields.map((field) => [field.name.value, documentInput(field.value, `${input.path}.${field.name.value}`)]);
    }
    const value = resolved.value;
    this.probe(resolved, 'keys');
    if (!isObject(value)) throw errors.unexpectedValue(input.path, 'an object', describe(value));
    return Object.entries(value).map(([key, item]) => [key, inner(resolved, item, `${input.path}.${key}`, key)]);
  }

  /** The items of a list; a single value stands for a list of one (GraphQL input coercion). */
  items(input: Input): Input[] {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      if (resolved.node.kind !== Kind.LIST) return [resolved];
      return resolved.node.values.map((node, index) => documentInput(node, `${input.path}[${index}]`));
    }
    this.probe(resolved, 'items');
    if (!Array.isArray(resolved.value)) return [resolved];
    return resolved.value.map((value: unknown, index) => inner(resolved, value, `${input.path}[${index}]`, index));
  }

  /** An enum value or string that decides the SQL text (an order direction, a column name). */
  name(input: Input): string {
    const resolved = this.resolve(input);
    if (resolved.source === 'document') {
      const node = resolved.node;
      invariant(node.kind === Kind.ENUM || node.kind === Kind.STRING, 'validated input is an enum value or string');
      return node.value;
    }
    this.exact(resolved);
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
    this.exact(resolved);
    if (typeof resolved.value !== 'boolean') throw errors.unexpectedValue(input.path, 'a boolean', describe(resolved.value));
    return resolved.value;
  }

  /** An integer that decides the SQL text (a LIMIT or OFFSET, see limit.ts). */
  integer(input: Input): number {
    const resolved = this.resolve(input);
    const value = resolved.source === 'document'
      ? documentInteger(resolved.node)
      : this.exact(resolved);
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw errors.unexpectedValue(input.path, 'an integer', describe(value));
    return value;
  }

  /**
   * A parameter placeholder for a value. A `$variable` in the document stays a variable
   * parameter, so the plan serves every value of it; a session variable named in a
   * permission is bound per request; anything else is a constant of the plan.
   */
  param(input: Input, params: ParamList, sqlType: string, encoding: ParamEncoding, typeName: string): string {
    return params.add(this.source(input, encoding, typeName), sqlType);
  }

  /** Where a parameter's value comes from: a variable (or a part of one), a session variable, or a constant of the plan. */
  source(input: Input, encoding: ParamEncoding, typeName: string): ParamSource {
    if (this.isNull(input)) throw errors.unexpectedNull(input.path, typeName);
    if (input.source === 'document' && input.node.kind === Kind.VARIABLE) return { kind: 'variable', name: input.node.name.value, encoding };
    if (input.source === 'variable' && input.place !== undefined) return { kind: 'variable', name: input.place.name, encoding, ...(input.place.at.length === 0 ? {} : { at: input.place.at }) };
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

  /** Makes the variable's whole value part of the plan's shape (see Probe) and returns it. */
  pin(name: string): unknown {
    const value = this.variables[name] ?? null;
    this.record({ name, at: [] }, 'exact', value);
    return value;
  }

  /** A part of a variable written into the SQL text: the plan holds for this exact value only. */
  private exact(input: Exclude<Input, { source: 'document' }>): unknown {
    this.probe(input, 'exact');
    return input.value;
  }

  /** Records what the plan assumes of a part of a variable (nothing for other values). */
  private probe(input: Exclude<Input, { source: 'document' }>, kind: Probe['kind']): void {
    if (input.source === 'variable' && input.place !== undefined) this.record(input.place, kind, input.value);
  }

  private record(place: VariablePlace, kind: Probe['kind'], value: unknown): void {
    let probes = this.uses.get(place.name);
    if (probes === undefined) this.uses.set(place.name, (probes = new Map()));
    probes.set(`${kind}${JSON.stringify(place.at)}`, { kind, at: place.at, answer: answer(kind, value) });
  }

  private resolve(input: Input): Input {
    if (input.source !== 'document' || input.node.kind !== Kind.VARIABLE) return input;
    const name = input.node.name.value;
    return { source: 'variable', value: this.variables[name] ?? null, path: input.path, place: { name, at: [] } };
  }
}

/** A part of a variable's or permission's value, keeping where it sits in the variable. */
function inner(parent: Exclude<Input, { source: 'document' }>, value: unknown, path: string, step: string | number): Input {
  if (parent.source === 'permission') return { source: 'permission', value, path };
  if (parent.place === undefined) return { source: 'variable', value, path };
  return { source: 'variable', value, path, place: { name: parent.place.name, at: [...parent.place.at, step] } };
}

function answer(kind: Probe['kind'], value: unknown): string {
  switch (kind) {
    case 'null':
      return String(value === null || value === undefined);
    case 'keys':
      return isObject(value) ? JSON.stringify(Object.keys(value)) : describe(value);
    case 'items':
      return Array.isArray(value) ? String(value.length) : describe(value);
    case 'exact':
      return JSON.stringify(value ?? null);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An `Int` literal, or an integer written as a string where the lenient validation let one through (Hasura v2's `offset: "10"`). */
function documentInteger(node: ValueNode): number | undefined {
  if (node.kind === Kind.INT) return Number(node.value);
  return node.kind === Kind.STRING && /^-?\d+$/.test(node.value) ? Number(node.value) : undefined;
}

function isSessionVariable(value: string): boolean {
  return value.toLowerCase().startsWith(SESSION_VARIABLE_PREFIX);
}

/** Whether a plan compiled with `uses` also serves a request with these variables. */
export function usesMatch(uses: ReadonlyMap<string, VariableUse>, variables: Record<string, unknown>): boolean {
  for (const [name, probes] of uses) {
    for (const probe of probes.values()) {
      if (answer(probe.kind, valueAt(variables[name], probe.at)) !== probe.answer) return false;
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
