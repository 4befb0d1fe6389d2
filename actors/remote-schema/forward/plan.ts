import {
  getNamedType,
  isInputObjectType,
  Kind,
  parseType,
  print,
  TypeInfo,
  typeFromAST,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type FieldNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type ObjectFieldNode,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import { invariant } from '../../../src/errors/service-error.js';
import type { PresetSpot } from '../permissions/role-view.js';
import type { RoleRemote } from '../model.js';
import { ENGINE_ROOTS } from '../customization/served-schema.js';
import { unnestNamespace, usedFragments } from './namespace.js';
import { typenameShape, type ResponseMapping } from './response.js';

/**
 * How one validated operation of a role reaches a remote server (interface 4.3 rule 3:
 * all its top-level fields come from one server): the whole operation goes upstream as
 * ONE request, as Hasura sends it, so the remote's data and errors come back as the
 * remote wrote them (or, under a customization, mapped back to the served names). Root
 * `__typename`, `__schema` and `__type` stay with the schema actor. Built once per
 * (role view, document) and kept.
 */
export interface ForwardPlan {
  remote: RoleRemote;
  /** The upstream operation's text: names back to the remote's, presets injected, root introspection fields left out. */
  query: string;
  operationName: string | null;
  /** Variables the plan added for session-variable presets, with the session variable and upstream type. */
  sessionPresets: { variable: string; session: string; type: GraphQLInputType }[];
  /** Client variables whose values hold input objects with preset fields, to fill per request (served types). */
  presetVariables: { name: string; type: GraphQLInputType }[];
  /** How the remote's response becomes the client's under a customization; null when its bytes pass on as they are. */
  response: ResponseMapping | null;
}

const STATIC_ROOTS = new Set(['__typename', '__schema', '__type']);

/**
 * The plan of `operation` (validated against the role's schema, every root field from
 * `remote`), read against the remote's served view, whose roots are the engine's.
 */
export function planForward(remote: RoleRemote, operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): ForwardPlan {
  const schema = remote.served;
  const { upstream, names } = remote.model;
  const kind = operation.operation;
  invariant(kind !== 'subscription', 'subscriptions are never forwarded');
  const rootName = ENGINE_ROOTS[kind];
  const upstreamRoot = (kind === 'query' ? upstream.getQueryType() : upstream.getMutationType())!.name;
  // Served names back to the remote's (customization, compat-facts 7.1); the engine's roots to the remote's roots.
  const upstreamType = (name: string) => (name === rootName ? upstreamRoot : names.upstreamType(name));
  const { argumentPresets, inputFieldPresets } = remote.view;
  const sessionPresets: ForwardPlan['sessionPresets'] = [];
  const presetValue = (spot: PresetSpot) => {
    if (spot.preset.kind === 'static') return spot.preset.value;
    const variable = `__preset_${sessionPresets.length}`;
    sessionPresets.push({ variable, session: spot.preset.variable, type: spot.type });
    return { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: variable } } as const;
  };

  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...usedFragments(operation, fragments)] };
  const typeInfo = new TypeInfo(schema);
  const presetVariables: ForwardPlan['presetVariables'] = [];
  // Renames happen on leave: TypeInfo must see the served names of the nodes it enters.
  const rewritten = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      VariableDefinition: (node: VariableDefinitionNode) => {
        const type = typeFromAST(schema, node.type) as GraphQLInputType | undefined;
        if (type !== undefined && reachesInputPresets(type, inputFieldPresets, names.upstreamType)) presetVariables.push({ name: node.variable.name.value, type });
      },
      NamedType: { leave: (node) => ({ ...node, name: { ...node.name, value: upstreamType(node.name.value) } }) },
      Field: {
        enter: (node) => (typeInfo.getParentType()?.name === rootName && STATIC_ROOTS.has(node.name.value) ? null : undefined),
        leave: (node) => {
          const parent = typeInfo.getParentType();
          if (parent == null || node.name.value.startsWith('__')) return undefined;
          const upstreamParent = upstreamType(parent.name);
          const field = names.upstreamField(upstreamParent, node.name.value);
          const presets = argumentPresets.get(`${upstreamParent}.${field}`);
          if (presets === undefined && field === node.name.value) return undefined;
          const renamed: FieldNode = field === node.name.value ? node : { ...node, alias: node.alias ?? node.name, name: { ...node.name, value: field } };
          if (presets === undefined) return renamed;
          const args: ArgumentNode[] = (node.arguments ?? []).filter((argument) => !presets.has(argument.name.value));
          for (const [name, spot] of presets) args.push({ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: name }, value: presetValue(spot) });
          return { ...renamed, arguments: args };
        },
      },
      ObjectValue: (node) => {
        const type = typeInfo.getInputType();
        const presets = type == null ? undefined : inputFieldPresets.get(names.upstreamType(getNamedType(type).name));
        if (presets === undefined) return undefined;
        const fields: ObjectFieldNode[] = node.fields.filter((field) => !presets.has(field.name.value));
        for (const [name, spot] of presets) fields.push({ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: name }, value: presetValue(spot) });
        return { ...node, fields };
      },
    }),
  );
  let [upstreamOperation, ...upstreamFragments] = rewritten.definitions as [OperationDefinitionNode, ...FragmentDefinitionNode[]];
  let namespaceKeys: string[] | null = null;
  if (names.namespace !== null) {
    const unnested = unnestNamespace(upstreamOperation, new Map(upstreamFragments.map((fragment) => [fragment.name.value, fragment])), upstreamRoot);
    upstreamOperation = unnested.operation;
    upstreamFragments = unnested.fragments;
    namespaceKeys = unnested.keys;
  }
  const variableDefinitions = [
    ...(upstreamOperation.variableDefinitions ?? []),
    ...sessionPresets.map((preset): VariableDefinitionNode => ({
      kind: Kind.VARIABLE_DEFINITION,
      variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: preset.variable } },
      type: parseType(String(preset.type)),
    })),
  ];
  const query = print({ kind: Kind.DOCUMENT, definitions: [{ ...upstreamOperation, variableDefinitions }, ...upstreamFragments] });
  const typenames = names.renamesTypes ? typenameShape(operation.selectionSet, fragments) : null;
  const response = namespaceKeys !== null || typenames !== null ? { namespaceKeys, typenames } : null;
  return { remote, query, operationName: operation.name?.value ?? null, sessionPresets, presetVariables, response };
}

/** Whether a value of `type` may contain an input object with preset fields. */
function reachesInputPresets(type: GraphQLInputType, presets: ReadonlyMap<string, unknown>, upstreamName: (served: string) => string, seen = new Set<string>()): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named.name)) return false;
  if (presets.has(upstreamName(named.name))) return true;
  seen.add(named.name);
  return Object.values(named.getFields()).some((field) => reachesInputPresets(field.type, presets, upstreamName, seen));
}
