import { collectFields } from '@graphql-tools/utils';
import { Kind, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Bus } from '../../../src/bus/bus.js';
import type { ExecuteRequest, RoleRemoteSource } from '../../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../../src/bus/subjects.js';
import { decodeText, encodeText, REPLY_META } from '../../../src/bus/wire.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import { REMOTE_TIMEOUT_SECONDS_DEFAULT } from '../../../src/metadata/types.js';
import type { Session } from '../../../src/session/session.js';
import type { PreparedDocument } from './plan-cache.js';
import { REMOTE_SUBSCRIPTIONS, type RemoteRoutes } from '../graphql/remote-merge.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { resolveStaticField } from './static-fields.js';
import type { TraceContext } from '../../../src/tracing/tracer.js';

/** What remote execution needs of the request beyond the database (graphql-handler.ts fills it). */
export interface RemoteExecutionContext {
  bus?: Bus;
  requestId: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Receives the remote's `Set-Cookie` values, for the reply to the client. */
  setCookies?: string[];
  /** The request's trace, when it is traced: remote calls join it. */
  trace?: TraceContext | undefined;
}

type ReadyDocument = Extract<PreparedDocument, { kind: 'ready' }>;

/** Where an operation's top-level fields come from (interface 4.3 rule 3: one server per operation). */
type RemoteRouting = { kind: 'local' } | { kind: 'mixed' } | { kind: 'remote'; remote: RoleRemoteSource; hasStaticRoots: boolean };

/** Routing decided once per prepared document (role + query text), beside its SQL plans. */
const routings = new WeakMap<ReadyDocument, RemoteRouting>();

const STATIC_ROOTS = new Set(['__typename', '__schema', '__type']);

/**
 * Runs an operation whose top-level fields come from a remote server on the remote-schema
 * actor; undefined when they all come from the database (the SQL path answers). Fields
 * from two servers in one operation are refused (interface 4.3 rule 3; Hasura v1's text,
 * compat-facts 7.2). Root `__typename`, `__schema` and `__type` are answered here from the
 * role's schema, around the remote's data in the order the client asked for them.
 */
export async function executeIfRemote(
  routes: RemoteRoutes,
  schema: GraphQLSchema,
  prepared: ReadyDocument,
  request: { query: string; operationName?: string | null },
  variables: Record<string, unknown>,
  session: Session,
  context: RemoteExecutionContext,
): Promise<Uint8Array | undefined> {
  let routing = routings.get(prepared);
  if (routing === undefined) {
    routing = routeOperation(routes, prepared.operation, prepared.fragments);
    routings.set(prepared, routing);
  }
  if (routing.kind === 'local') return undefined;
  if (routing.kind === 'mixed') return graphqlErrorBody([errors.mixedRemoteFields('$')]);
  if (context.bus === undefined) return graphqlErrorBody([errors.remoteSchemasUnreachable('$')]);
  const message: ExecuteRequest = {
    remote: routing.remote,
    query: request.query,
    operationName: request.operationName ?? null,
    variables,
    session,
    headers: context.headers ?? {},
  };
  // Long enough for the remote's own timeout to be the one that ends a slow call.
  const timeoutMs = Math.max(context.timeoutMs ?? 0, (routing.remote.definition.timeout_seconds ?? REMOTE_TIMEOUT_SECONDS_DEFAULT) * 1000 + 1000);
  let body: Uint8Array;
  try {
    const reply = await context.bus.ask(context.bus.subjects.remote(REMOTE_VERBS.execute), message, { requestId: context.requestId, timeoutMs, trace: context.trace });
    body = reply.body;
    const cookies = reply.meta[REPLY_META.setCookie];
    if (cookies !== undefined) context.setCookies?.push(...(JSON.parse(cookies) as string[]));
  } catch (error) {
    if (error instanceof ServiceError) return graphqlErrorBody([error]);
    throw error;
  }
  return routing.hasStaticRoots ? withStaticRoots(body, schema, prepared.operation, prepared.fragments, variables) : body;
}

function routeOperation(routes: RemoteRoutes, operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): RemoteRouting {
  if (operation.operation === 'subscription') return { kind: 'local' };
  const table = operation.operation === 'query' ? routes.query : routes.mutation;
  const names = rootFieldNames(operation.selectionSet, fragments);
  const owners = new Set<RoleRemoteSource | 'local'>();
  for (const name of names) if (!STATIC_ROOTS.has(name)) owners.add(table.get(name) ?? 'local');
  if (owners.size === 0 || (owners.size === 1 && owners.has('local'))) return { kind: 'local' };
  if (owners.size > 1) return { kind: 'mixed' };
  return { kind: 'remote', remote: [...owners][0] as RoleRemoteSource, hasStaticRoots: names.some((name) => STATIC_ROOTS.has(name)) };
}

/** Names of the root fields an operation selects, through fragments, whatever its directives. */
function rootFieldNames(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen = new Set<string>()): string[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection.name.value];
    if (selection.kind === Kind.INLINE_FRAGMENT) return rootFieldNames(selection.selectionSet, fragments, seen);
    const fragment = fragments.get(selection.name.value);
    if (fragment === undefined || seen.has(fragment.name.value)) return [];
    seen.add(fragment.name.value);
    return rootFieldNames(fragment.selectionSet, fragments, seen);
  });
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

/**
 * The refusal of an operation type the role's schema does not serve, or null when it is
 * served: a subscription to a remote server's field is refused as such (interface 4.3
 * rule 4, Hasura's text), whether the role has subscriptions of its own or not.
 */
export function unservedOperation(schema: GraphQLSchema, operation: OperationDefinitionNode): Uint8Array | null {
  const remote = (schema.extensions as Record<string, unknown>)[REMOTE_SUBSCRIPTIONS] as ReadonlySet<string> | undefined;
  if (operation.operation === 'subscription' && remote !== undefined) {
    const selected = operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && remote.has(selection.name.value));
    if (selected) return graphqlErrorBody([errors.remoteSubscription('$')]);
  }
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return root == null ? graphqlErrorBody([errors.operationTypeUnserved('$', operation.operation)]) : null;
}
