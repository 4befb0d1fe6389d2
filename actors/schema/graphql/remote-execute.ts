import { collectFields } from '@graphql-tools/utils';
import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  valueFromAST,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Bus } from '../../../src/bus/bus.js';
import { decodeText, encodeText } from '../../../src/bus/wire.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import type { Session } from '../../../src/session/session.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../../remote-schema/definition.js';
import { SET_COOKIE_META, type ExecuteRequest } from '../../remote-schema/messages.js';
import { sessionValueAs } from '../../remote-schema/permissions/preset.js';
import type { PresetSpot } from '../../remote-schema/permissions/role-view.js';
import type { ForwardPlan } from './remote-forward.js';
import { mapRemoteResponse } from './remote-response.js';
import { errorBody } from './response-errors.js';
import { resolveStaticField } from './static-fields.js';

export interface RemoteCallContext {
  bus: Bus;
  requestId: string;
  /** The client's request headers (for `forward_client_headers`). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Collects the remote's `Set-Cookie` values for the client's response (compat-facts 7.2). */
  setCookies?: string[];
}

class PresetError extends Error {}

/**
 * Runs a forward plan for one request: the client's (coerced) variables plus the preset
 * values of this session, one `<p>.remote.execute` call, and the reply bytes as they come
 * unless the operation also selected root introspection fields, which are answered here
 * around the remote's data in the order the client asked for them.
 */
export async function executeForward(
  plan: ForwardPlan,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  session: Session,
  call: RemoteCallContext,
): Promise<Uint8Array> {
  let upstreamVariables: Record<string, unknown>;
  try {
    upstreamVariables = presetVariables(plan, variables, session);
  } catch (error) {
    if (error instanceof PresetError) return errorBody([{ message: error.message, path: '$', code: 'not-found' }]);
    throw error;
  }
  const request: ExecuteRequest = {
    name: plan.remote.model.entry.name,
    definition: plan.remote.model.entry.definition,
    query: plan.query,
    variables: upstreamVariables,
    operationName: plan.operationName,
    session,
    headers: call.headers,
  };
  const timeoutMs = Math.max(call.timeoutMs, (plan.remote.model.entry.definition.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000 + 1000);
  let body: Uint8Array;
  try {
    // The request as a value: in-process delivery hands it over without encoding it.
    const reply = await call.bus.ask(call.bus.subjects.remote('execute'), request, { requestId: call.requestId, timeoutMs });
    body = reply.body;
    const cookies = reply.meta[SET_COOKIE_META];
    if (cookies !== undefined) call.setCookies?.push(...(JSON.parse(cookies) as string[]));
  } catch (error) {
    if (error instanceof ServiceError) return errorBody([{ message: error.message, path: error.path, code: error.code }]);
    throw error;
  }
  if (plan.response !== null) body = mapRemoteResponse(body, plan.response, plan.remote.model.names);
  return plan.hasStaticRoots ? withStaticRoots(body, schema, operation, fragments, variables) : body;
}

function presetVariables(plan: ForwardPlan, variables: Record<string, unknown>, session: Session): Record<string, unknown> {
  if (plan.sessionPresets.length === 0 && plan.presetVariables.length === 0) return variables;
  const out: Record<string, unknown> = { ...variables };
  for (const preset of plan.sessionPresets) out[preset.variable] = sessionPreset(preset.session, preset.type, session);
  const presets = plan.remote.view.inputFieldPresets;
  const upstreamName = plan.remote.model.names.upstreamType;
  for (const { name, type } of plan.presetVariables) if (out[name] !== undefined) out[name] = injectInputPresets(out[name], type, { presets, upstreamName }, session);
  return out;
}

function sessionPreset(variable: string, type: GraphQLInputType, session: Session): unknown {
  const text = session.variables[variable];
  // A missing session variable is an error, never a null (interface 2.3 rule 3).
  if (text === undefined) throw new PresetError(`missing session variable: ${JSON.stringify(variable)}`);
  const value = sessionValueAs(text, type);
  if (value === undefined) throw new PresetError(`session variable ${JSON.stringify(variable)} is not a valid ${String(getNamedType(type))}`);
  return value;
}

function presetOf(spot: PresetSpot, session: Session): unknown {
  return spot.preset.kind === 'session' ? sessionPreset(spot.preset.variable, spot.type, session) : valueFromAST(spot.preset.value, spot.type);
}

/** Input field presets by upstream type name, and the upstream name of a served type. */
interface InputPresets {
  presets: ReadonlyMap<string, ReadonlyMap<string, PresetSpot>>;
  upstreamName: (served: string) => string;
}

/** A variable's value with the role's input field presets set at every depth, overriding whatever was sent. */
function injectInputPresets(value: unknown, type: GraphQLInputType, input: InputPresets, session: Session): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return injectInputPresets(value, type.ofType, input, session);
  if (isListType(type)) return Array.isArray(value) ? value.map((item) => injectInputPresets(item, type.ofType, input, session)) : injectInputPresets(value, type.ofType, input, session);
  if (!isInputObjectType(type) || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const fields = type.getFields();
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) out[key] = fields[key] === undefined ? inner : injectInputPresets(inner, fields[key].type, input, session);
  for (const [name, spot] of input.presets.get(input.upstreamName(type.name)) ?? []) out[name] = presetOf(spot, session);
  return out;
}

/** Root `__typename`/`__schema`/`__type` answered from the role's schema, spliced in the client's order. */
function withStaticRoots(body: Uint8Array, schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, variables: Record<string, unknown>): Uint8Array {
  const response = JSON.parse(decodeText(body)) as { data?: Record<string, unknown> | null; errors?: unknown };
  if (response.data == null) return body;
  const root = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const { fields } = collectFields(schema, Object.fromEntries(fragments), variables as never, root, operation.selectionSet);
  const parts: string[] = [];
  for (const [responseKey, nodes] of fields) {
    const name = nodes[0]!.name.value;
    const json =
      name === '__typename' ? JSON.stringify(root.name)
      : name === '__schema' || name === '__type' ? resolveStaticField(schema, operation, fragments, variables, { responseKey, name, nodes, path: `$.selectionSet.${name}` })
      : JSON.stringify(response.data[responseKey] ?? null);
    parts.push(`${JSON.stringify(responseKey)}:${json}`);
  }
  const rest = Object.entries(response).filter(([key]) => key !== 'data').map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return encodeText(`{"data":{${parts.join(',')}}${rest.join('')}}`);
}
