import { isIntrospectionType, isSpecifiedScalarType, specifiedScalarTypes, type GraphQLSchema } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import { GRAPHQL_NAME } from '../../../src/graphql/name.js';

/**
 * A remote schema's `customization` (compat-facts 7.1): its root fields nested under one
 * field, its type names and the field names of chosen types changed. Names here are
 * GraphQL names; `parent_type` and mapping keys are the upstream's names.
 */
export interface RemoteCustomization {
  root_fields_namespace?: string;
  type_names?: { prefix?: string; suffix?: string; mapping?: Record<string, string> };
  field_names?: { parent_type: string; prefix?: string; suffix?: string; mapping?: Record<string, string> }[];
}


/**
 * Reads a stored customization, refusing what Hasura refuses when the remote is added
 * (compat-facts 7.2): a shape other than the documented one, a name that is not a
 * GraphQL name, and any customization of a reserved `__` name. `path` is the JSON path
 * of the customization.
 */
export function readCustomization(value: unknown, path: string): RemoteCustomization | undefined {
  if (value === undefined || value === null) return undefined;
  const object = (inner: unknown, at: string): Record<string, unknown> => {
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) throw errors.invalidParams(at, 'expected an object');
    return inner as Record<string, unknown>;
  };
  const name = (inner: unknown, at: string, optional: boolean): string | undefined => {
    if (inner === undefined && optional) return undefined;
    if (typeof inner !== 'string') throw errors.invalidParams(at, 'expected a GraphQL name');
    if (inner.startsWith('__')) throw errors.invalidParams(path, `attempt to customize reserved field name ${JSON.stringify(inner)}`);
    if (!GRAPHQL_NAME.test(inner)) throw errors.invalidParams(at, `${JSON.stringify(inner)} is not a valid GraphQL name`);
    return inner;
  };
  const mapping = (inner: unknown, at: string): Record<string, string> | undefined => {
    if (inner === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [from, to] of Object.entries(object(inner, at))) out[name(from, at, false)!] = name(to, `${at}.${from}`, false)!;
    return out;
  };
  const root = object(value, path);
  for (const key of Object.keys(root)) if (!['root_fields_namespace', 'type_names', 'field_names'].includes(key)) throw errors.invalidParams(`${path}.${key}`, `unexpected key ${JSON.stringify(key)}`);
  const out: RemoteCustomization = {};
  const namespace = name(root.root_fields_namespace, `${path}.root_fields_namespace`, true);
  if (namespace !== undefined) out.root_fields_namespace = namespace;
  if (root.type_names !== undefined) {
    const at = `${path}.type_names`;
    const types = object(root.type_names, at);
    out.type_names = withoutUndefined({ prefix: name(types.prefix, `${at}.prefix`, true), suffix: name(types.suffix, `${at}.suffix`, true), mapping: mapping(types.mapping, `${at}.mapping`) });
  }
  if (root.field_names !== undefined) {
    if (!Array.isArray(root.field_names)) throw errors.invalidParams(`${path}.field_names`, 'expected an array');
    out.field_names = root.field_names.map((item, index) => {
      const at = `${path}.field_names[${index}]`;
      const fields = object(item, at);
      return { parent_type: name(fields.parent_type, `${at}.parent_type`, false)!, ...withoutUndefined({ prefix: name(fields.prefix, `${at}.prefix`, true), suffix: name(fields.suffix, `${at}.suffix`, true), mapping: mapping(fields.mapping, `${at}.mapping`) }) };
    });
  }
  return out;
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}

/**
 * The names of one remote schema as served and as the remote knows them, both ways
 * (Hasura's remote schema customizer). Built-in scalars and `__` names never change.
 */
export interface RemoteNames {
  /** True when anything is renamed or namespaced: forwarding then rewrites the operation. */
  readonly customized: boolean;
  /** True when some type is renamed: `__typename` values are then mapped back. */
  readonly renamesTypes: boolean;
  readonly namespace: string | null;
  servedType(upstream: string): string;
  upstreamType(served: string): string;
  servedField(upstreamParent: string, upstreamField: string): string;
  upstreamField(upstreamParent: string, servedField: string): string;
}

export const IDENTITY_NAMES: RemoteNames = {
  customized: false,
  renamesTypes: false,
  namespace: null,
  servedType: (name) => name,
  upstreamType: (name) => name,
  servedField: (_parent, name) => name,
  upstreamField: (_parent, name) => name,
};

const duplicates = (names: Iterable<string>): string[] => {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const name of names) (seen.has(name) ? twice : seen).add(name);
  return [...twice];
};
const quoteAll = (names: string[]): string => names.map((name) => JSON.stringify(name)).join(', ');

/**
 * The names of `upstream` under `customization`: a mapping wins over prefix and suffix.
 * Throws the inconsistency reason (compat-facts 7.2) when two types, or two fields of one
 * type, would be served under one name.
 */
export function remoteNamesOf(upstream: GraphQLSchema, customization: RemoteCustomization | undefined): RemoteNames {
  if (customization === undefined) return IDENTITY_NAMES;
  const typeRule = customization.type_names;
  const fieldRules = new Map((customization.field_names ?? []).map((rule) => [rule.parent_type, rule]));
  const toServed = new Map<string, string>();
  for (const type of Object.values(upstream.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    const served = typeRule?.mapping?.[type.name] ?? `${typeRule?.prefix ?? ''}${type.name}${typeRule?.suffix ?? ''}`;
    if (served !== type.name) toServed.set(type.name, served);
  }
  const servedTypeNames = Object.values(upstream.getTypeMap())
    .filter((type) => !isIntrospectionType(type))
    .map((type) => toServed.get(type.name) ?? type.name);
  const repeated = duplicates([...servedTypeNames, ...specifiedScalarTypes.filter((type) => upstream.getType(type.name) === undefined).map((type) => type.name)]);
  if (repeated.length > 0) throw new Error(`Type name mappings are not distinct; the following types appear more than once: ${quoteAll(repeated)}`);
  const toUpstreamType = new Map([...toServed].map(([from, to]) => [to, from]));

  const fieldsServed = new Map<string, Map<string, string>>();
  const fieldsUpstream = new Map<string, Map<string, string>>();
  for (const [parent, rule] of fieldRules) {
    const type = upstream.getType(parent);
    if (type === undefined || !('getFields' in type)) continue;
    const served = new Map<string, string>();
    for (const field of Object.keys(type.getFields())) {
      if (field.startsWith('__')) continue;
      const name = rule.mapping?.[field] ?? `${rule.prefix ?? ''}${field}${rule.suffix ?? ''}`;
      if (name !== field) served.set(field, name);
    }
    const repeatedFields = duplicates(Object.keys(type.getFields()).map((field) => served.get(field) ?? field));
    if (repeatedFields.length > 0) throw new Error(`Field name mappings for object type ${JSON.stringify(parent)} are not distinct; the following fields appear more than once: ${quoteAll(repeatedFields)}`);
    if (served.size === 0) continue;
    fieldsServed.set(parent, served);
    fieldsUpstream.set(parent, new Map([...served].map(([from, to]) => [to, from])));
  }
  const namespace = customization.root_fields_namespace ?? null;
  return {
    customized: toServed.size > 0 || fieldsServed.size > 0 || namespace !== null,
    renamesTypes: toServed.size > 0,
    namespace,
    servedType: (name) => toServed.get(name) ?? name,
    upstreamType: (name) => toUpstreamType.get(name) ?? name,
    servedField: (parent, name) => fieldsServed.get(parent)?.get(name) ?? name,
    upstreamField: (parent, name) => fieldsUpstream.get(parent)?.get(name) ?? name,
  };
}
