import { Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Bus } from '../../../src/bus/bus.js';
import type { Session } from '../../../src/session/session.js';
import type { PreparedDocument } from './plan-cache.js';
import { executeForward } from './remote-execute.js';
import { routeOperation, type RemoteRouting } from './remote-forward.js';
import type { RemoteRoutes } from './remote-merge.js';
import { errorBody, validationError } from './response-errors.js';

/** What remote execution needs of the request beyond the database (graphql-handler.ts fills it). */
export interface RemoteExecutionContext {
  bus?: Bus;
  requestId: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Receives the remote's `Set-Cookie` values, for the reply to the client. */
  setCookies?: string[];
}

type ReadyDocument = Extract<PreparedDocument, { kind: 'ready' }>;

/** Routing decided once per prepared document (role + query text), beside its SQL plans. */
const routings = new WeakMap<ReadyDocument, RemoteRouting>();

/**
 * Runs an operation whose top-level fields come from a remote server; undefined when
 * they all come from the database (the SQL path answers). Fields from two servers in
 * one operation are refused (interface 4.3 rule 3; Hasura v1's text, compat-facts 7.2).
 */
export async function executeIfRemote(
  routes: RemoteRoutes,
  schema: GraphQLSchema,
  prepared: ReadyDocument,
  variables: Record<string, unknown>,
  session: Session,
  context: RemoteExecutionContext,
): Promise<Uint8Array | undefined> {
  let routing = routings.get(prepared);
  if (routing === undefined) {
    routing = routeOperation(schema, routes, prepared.operation, prepared.fragments);
    routings.set(prepared, routing);
  }
  if (routing.kind === 'local') return undefined;
  if (routing.kind === 'mixed') return errorBody([{ message: 'cannot mix top level fields from two different graphql servers', path: '$', code: 'not-supported' }]);
  if (context.bus === undefined) return errorBody([{ message: 'remote schemas are not available here', path: '$', code: 'unexpected' }]);
  const call = { bus: context.bus, requestId: context.requestId, headers: context.headers ?? {}, timeoutMs: context.timeoutMs ?? 0, setCookies: context.setCookies };
  return executeForward(routing.plan, schema, prepared.operation, prepared.fragments, variables, session, call);
}

/** Remote subscription root fields of a merged schema, kept for the refusal below. */
export const REMOTE_SUBSCRIPTIONS = 'remoteSubscriptionFields';

/**
 * The answer to an operation type the role's schema does not serve: a subscription to a
 * remote server's field is refused as such (interface 4.3 rule 4, Hasura v1's text).
 */
export function unservedOperation(schema: GraphQLSchema, operation: OperationDefinitionNode): Uint8Array {
  const remote = (schema.extensions as Record<string, unknown>)[REMOTE_SUBSCRIPTIONS] as ReadonlySet<string> | undefined;
  if (operation.operation === 'subscription' && remote !== undefined) {
    const selected = operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && remote.has(selection.name.value));
    if (selected) return errorBody([{ message: 'subscription to remote server is not supported', path: '$', code: 'not-supported' }]);
  }
  return validationError(`no ${operation.operation}s exist`);
}
