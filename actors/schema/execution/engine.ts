import { Kind, parse, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Logger } from '../../../src/log/logger.js';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { withBoundedClient, type BoundedPool, type RequestBounds } from '../../../src/pg/bounded-client.js';
import { queryNamed } from '../../../src/pg/prepared-statements.js';
import type { Cancellation } from '../../../src/request/cancellation.js';
import { ADMIN_ROLE, isAdmin, sessionKey, usesBackendOnlyPermissions, type Session } from '../../../src/session/session.js';
import { encodeDataBody } from '../../../src/bus/wire.js';
import { TRACEPARENT, traceHeaders } from '../../../src/tracing/propagation.js';
import { tracingEnabled } from '../../../src/tracing/tracer.js';
import { compileOperation } from '../sql/compile-operation.js';
import { operationLimitError, roleLimits } from './api-limits.js';
import { bindParams, type Placeholder } from '../sql/params.js';
import type { SubscriptionPlanReply } from '../../../src/bus/messages/subscriptions.js';
import { decodeText } from '../../../src/bus/wire.js';
import { COHORT_PLACEHOLDER, subscriptionPlan } from './subscription-plan.js';
import { databaseError } from '../../../src/errors/database.js';
import { PairLruCache } from '../../../src/cache/pair-lru.js';
import { documentVariant, namedPlan, planFor, type CompiledPlan, type PreparedDocument } from './plan-cache.js';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { documentTextTooDeep, MAX_DOCUMENT_DEPTH, selectionsTooDeep } from '../../../src/graphql/nesting.js';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import { compileErrorBody } from './response-errors.js';
import { roleAccess, type RoleAccess } from '../models/role-access.js';
import { buildRoleSchema } from '../graphql/role-schema.js';
import { buildRelaySchema } from '../graphql/relay-schema.js';
import { compileRelayOperation, RELAY_INTERFACES, relayRowField } from '../sql/compile-relay.js';
import { resolveStaticField } from './static-fields.js';
import type { EnumTableRows } from '../models/enum-tables.js';
import { buildSourceModel, type SourceModel } from '../models/table-model.js';
import { executeMutation } from './mutation-executor.js';
import { writeAccess, type WriteAccess } from '../models/write-access.js';
import { hasuraValidationError } from './validation-errors.js';
import { coerceLeniently } from './lenient-variables.js';
import { validateLeniently } from './lenient-validation.js';
import { actorRequest } from '../../../src/bus/actor-request.js';
import type { RoleViewReply, RoleViewRequest } from '../../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../../src/bus/subjects.js';
import { RoleRemoteSources } from '../models/remote-access.js';
import { mergeRemoteView, type RemoteRoutes } from '../graphql/remote-merge.js';
import { executeIfRemote, unservedOperation, type RemoteExecutionContext } from './remote-routing.js';
import { admissionFor } from './admission.js';
import type { OperationFacts } from '../../../src/log/operation-facts.js';

/** One GraphQL request of a (possibly batched) POST /v1/graphql body. */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface ExecutionContext extends RemoteExecutionContext {
  db: BoundedPool;
  requestId: string;
  /** Cancelled when nobody waits for the answer any more. */
  cancellation?: Cancellation;
  /** When the request's time is up (`Date.now()` clock); the role's time limit may bring it closer. */
  deadline?: number;
  /** The request came to the Relay API (`/v1beta1/relay`), served from the role's Relay schema. */
  relay?: boolean;
  /** Where the request's log facts are gathered: its operations, statements and SQL time. */
  facts?: OperationFacts;
}

/** Serves GraphQL for every role from one metadata version and catalog. */
export interface GraphqlEngine {
  /** Runs one request as `session` and returns the response JSON as bytes. */
  execute(request: GraphqlRequest, session: Session, context: ExecutionContext): Promise<Uint8Array>;
  /** The schema `role` sees (built on first use, then cached). */
  schemaFor(role: string, context: ExecutionContext): Promise<GraphQLSchema>;
  /** How the subscriptions actor fetches one subscription of `session` (subscription-plan.ts), or its refusal. */
  planSubscription(request: GraphqlRequest, session: Session, context: ExecutionContext): Promise<SubscriptionPlanReply>;
}

export interface GraphqlEngineOptions {
  /** Distinct (role, operation, query text) entries kept parsed, validated and compiled. */
  planCacheSize?: number;
  /** SERVICE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (default true). */
  inferFunctionPermissions?: boolean;
  /** Where a role served without its remote schemas is reported. */
  log?: Logger;
  /** The metadata version the engine serves, which subscription plans carry. */
  resourceVersion?: number;
  /** SERVICE_GRAPHQL_ENABLE_ALLOWLIST (default false). */
  enableAllowlist?: boolean;
  /**
   * SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (default false). Fixed for the engine's life,
   * so its plan caches hold one form only; the two forms' statements differ in text, so
   * their prepared statements' names (hashes of the text) differ too.
   */
  stringifyNumericTypes?: boolean;
  /** Told of each lookup of the plan cache, whether it found the document (the metrics' hits and misses). */
  onPlanCache?: (hit: boolean) => void;
  /** The enum tables' rows the consistency check read (its report's `enumRows`): the values of their GraphQL enums. */
  enumRows?: EnumTableRows;
}

interface RoleRuntime {
  /** The role, whether backend-only permissions are offered and whether its remotes are in: what the schema depends on. */
  cacheKey: string;
  access: RoleAccess;
  writes: WriteAccess;
  schema: GraphQLSchema;
  /** Where the role's remote root fields go; null without remote schemas. */
  remote: RemoteRoutes | null;
  /** The role's Relay API runtime (relay-schema.ts, compile-relay.ts). */
  relay?: true;
}

type ReadyDocument = Extract<PreparedDocument, { kind: 'ready' }>;

/**
 * Builds the engine for a metadata version. Only the table model is built here, since
 * this runs on every metadata change; each role's access and schema are built on the
 * role's first request.
 */
export function buildGraphqlEngine(metadata: Metadata, catalog: Catalog, options: GraphqlEngineOptions = {}): GraphqlEngine {
  const model = buildSourceModel(metadata, catalog, options.enumRows);
  const remotes = RoleRemoteSources.from(metadata, catalog);
  const roles = new Map<string, RoleRuntime | Promise<RoleRuntime>>();
  // By query text, then by role and operation (plan-cache.ts documentVariant).
  const documents = new PairLruCache<PreparedDocument>(options.planCacheSize ?? 1000);
  const admission = admissionFor(metadata, options);

  // Roles named in no permission all see the placeholder schema; they share one runtime
  // so that arbitrary role names cannot each cost a schema.
  const permittedRoles = new Set([ADMIN_ROLE, ...model.roleTables.keys()]);
  for (const role of remotes?.permittedRoles() ?? []) permittedRoles.add(role);
  for (const entry of metadata.inherited_roles ?? []) permittedRoles.add(entry.role_name);
  // Roles with a backend_only permission get a second runtime for requests that ask for it.
  const backendOnlyRoles = new Set(model.backendOnlyRoleTables.keys());
  // Writes also emit the session for event triggers (mutation-plan.ts) only when some exist.
  const emitSessionMessage = (metadata.sources[0]?.tables ?? []).some((entry) => (entry.event_triggers ?? []).length > 0);
  const stringifyNumbers = options.stringifyNumericTypes ?? false;
  /**
   * The role's runtime, built on its first request. With remote schemas the role's view of
   * them comes from the remote-schema actor; while it cannot answer, the role is served its
   * tables alone (and asks again on its next request).
   */
  const runtimeFor = (role: string, backendOnly: boolean, context: ExecutionContext): RoleRuntime | Promise<RoleRuntime> => {
    const key = permittedRoles.has(role) ? role : '';
    const backend = backendOnly && backendOnlyRoles.has(key);
    const schemaKey = backend ? `${key}\u0000backend-only` : key;
    const cacheKey = context.relay === true ? `${schemaKey}\u0000relay` : schemaKey;
    const kept = roles.get(cacheKey);
    if (kept !== undefined) return kept;
    const access = roleAccess(model, key, { inferFunctionPermissions: options.inferFunctionPermissions });
    const writes = writeAccess(model, access, backend);
    if (context.relay === true) {
      const runtime: RoleRuntime = { cacheKey, access, writes, schema: buildRelaySchema(access, writes), remote: null, relay: true };
      roles.set(cacheKey, runtime);
      return runtime;
    }
    const tables = buildRoleSchema(access, writes);
    const sources = remotes?.for(key) ?? [];
    if (sources.length === 0) {
      const runtime: RoleRuntime = { cacheKey, access, writes, schema: tables, remote: null };
      roles.set(cacheKey, runtime);
      return runtime;
    }
    const building = roleView(sources, context).then(
      (view) => {
        const merged = mergeRemoteView(tables, view, sources);
        const runtime: RoleRuntime = { cacheKey, access, writes, schema: merged.schema, remote: merged.routes };
        roles.set(cacheKey, runtime);
        return runtime;
      },
      (error: unknown): RoleRuntime => {
        options.log?.warn({ err: error, role: key }, 'the remote-schema actor gave no view of the remote schemas; serving the role its tables alone');
        roles.delete(cacheKey);
        return { cacheKey: `${cacheKey}\u0000without-remotes`, access, writes, schema: tables, remote: null };
      },
    );
    roles.set(cacheKey, building);
    return building;
  };

  const preparedFor = (runtime: RoleRuntime, request: GraphqlRequest): PreparedDocument => {
    const variant = documentVariant(runtime.cacheKey, request.operationName);
    let prepared = documents.get(request.query, variant);
    options.onPlanCache?.(prepared !== undefined);
    if (prepared === undefined) {
      prepared = prepareDocument(runtime.schema, request);
      documents.set(request.query, variant, prepared);
    }
    return prepared;
  };

  /** The role's runtime and the request's prepared document and variables, or the body refusing it. */
  const ready = async (request: GraphqlRequest, session: Session, context: ExecutionContext) => {
    const refused = admission.admit(request.query, session);
    if (refused !== null) return refused;
    const found = runtimeFor(session.role, usesBackendOnlyPermissions(session), context);
    const runtime = found instanceof Promise ? await found : found;
    const prepared = preparedFor(runtime, request);
    if (prepared.kind === 'refused') return prepared.body;
    const overLimit = operationLimitError(roleLimits(metadata.api_limits, session), prepared.operation, prepared.fragments);
    if (overLimit !== null) return graphqlErrorBody([overLimit]);
    const introspection = admission.introspection(prepared.operation, prepared.fragments, session);
    if (introspection !== null) return introspection;
    const definitions = prepared.operation.variableDefinitions ?? [];
    if (definitions.length === 0) return { runtime, prepared, variables: {} };
    const coerced = coerceLeniently(runtime.schema, definitions, request.variables ?? {}, prepared.lenient);
    if (coerced instanceof ServiceError) return graphqlErrorBody([coerced]);
    return { runtime, prepared, variables: coerced };
  };

  return {
    schemaFor: async (role, context) => (await runtimeFor(role, false, context)).schema,
    async planSubscription(request, session, context) {
      const found = await ready(request, session, context);
      if (found instanceof Uint8Array) return { ok: false, errors: decodeText(found) };
      const { runtime, prepared, variables } = found;
      const type = prepared.operation.operation;
      if (type !== 'subscription') return { ok: false, errors: decodeText(graphqlErrorBody([errors.notASubscription('$', type)])) };
      return subscriptionPlan({
        model,
        plans: prepared.subscriptionPlans,
        compile: () => compile(model, runtime, prepared, variables, stringifyNumbers, COHORT_PLACEHOLDER),
        variables,
        session,
        resourceVersion: options.resourceVersion ?? 0,
      });
    },
    async execute(request, session, context) {
      const found = await ready(request, session, context);
      if (found instanceof Uint8Array) {
        context.facts?.operations.push({ name: request.operationName ?? null, type: null });
        return found;
      }
      const { runtime, prepared, variables } = found;
      context.facts?.operations.push({ name: prepared.operation.name?.value ?? null, type: prepared.operation.operation });
      if (prepared.operation.operation === 'subscription') return graphqlErrorBody([errors.subscriptionOverHttp('$')]);
      if (runtime.remote !== null) {
        const remote = await executeIfRemote(runtime.remote, runtime.schema, prepared, request, variables, session, context);
        if (remote !== undefined) return remote;
      }
      if (prepared.operation.operation === 'mutation') {
        const { access, writes } = runtime;
        const request = { model, access, writes, operation: prepared.operation, fragments: prepared.fragments, emitSessionMessage, emitTraceMessage: tracingEnabled(), stringifyNumbers, ...(runtime.relay ? { relayField: relayRowField, interfaces: RELAY_INTERFACES } : {}) };
        // The events a traced mutation causes carry its traceparent, so their deliveries link back to it.
        const traceParent = context.trace === undefined ? undefined : traceHeaders(context.trace)[TRACEPARENT];
        return executeMutation({
          document: prepared,
          request,
          variables,
          session,
          db: context.db,
          bounds: boundsFor(session, context),
          ...(context.facts === undefined ? {} : { facts: context.facts }),
          ...(traceParent === undefined ? {} : { traceParent }),
        });
      }

      let plan: CompiledPlan;
      let values: unknown[];
      try {
        plan = planFor(prepared.plans, variables, () => namedPlan(compile(model, runtime, prepared, variables, stringifyNumbers)));
        if (plan.sql === null) return encodeDataBody(plan.staticData ?? 'null');
        values = bindParams(plan.params, variables, session.variables);
      } catch (error) {
        const refused = compileErrorBody(error);
        if (refused === null) throw error;
        return refused;
      }

      const statement = { name: plan.statementName, text: plan.sql, values };
      context.facts?.statements.push(plan.sql);
      const sqlStarted = performance.now();
      let data: string;
      try {
        data = (await withBoundedClient(context.db, boundsFor(session, context), (client) => queryNamed<{ data: string }>(client, statement))).rows[0]!.data;
      } catch (error) {
        // Out of time, or nobody waiting: the bounds' own error; anything else is the database's.
        if (error instanceof ServiceError) return graphqlErrorBody([error]);
        return graphqlErrorBody([databaseError(error, { sql: statement.text, values })], isAdmin(session));
      } finally {
        if (context.facts !== undefined) context.facts.sqlMs += performance.now() - sqlStarted;
      }
      // The data object is Postgres' JSON text, spliced in unparsed (ARCHITECTURE decision 4).
      return encodeDataBody(data);
    },
  };
}

/**
 * The request's bounds: its deadline, its cancellation, and whose share of the pool it
 * takes. Admin is not counted (a backend sending everything with the admin secret would
 * otherwise be one session); a session that no variable tells apart counts for its role only.
 */
function boundsFor(session: Session, context: ExecutionContext): RequestBounds {
  const key = sessionKey(session);
  const holder = isAdmin(session) ? undefined : key === null ? { role: session.role } : { role: session.role, session: key };
  return {
    deadline: context.deadline ?? Number.POSITIVE_INFINITY,
    timeUp: () => errors.timeLimitExceeded('$'),
    ...(holder === undefined ? {} : { holder }),
    ...(context.cancellation === undefined ? {} : { cancellation: context.cancellation }),
    ...(context.trace === undefined ? {} : { trace: context.trace }),
  };
}

/** The role's remote schemas as the remote-schema actor merges them. */
function roleView(sources: RoleViewRequest['remotes'], context: ExecutionContext): Promise<RoleViewReply> {
  if (context.bus === undefined) return Promise.reject(new Error('no bus to ask the remote-schema actor on'));
  const ask = actorRequest(context.bus, { requestId: context.requestId, timeoutMs: context.timeoutMs ?? 0 });
  return ask<RoleViewReply>((subjects) => subjects.remote(REMOTE_VERBS.roleView), { remotes: sources } satisfies RoleViewRequest);
}

function compile(model: SourceModel, runtime: RoleRuntime, prepared: ReadyDocument, variables: Record<string, unknown>, stringifyNumbers: boolean, placeholder?: Placeholder) {
  return (runtime.relay ? compileRelayOperation : compileOperation)({
    stringifyNumbers,
    model,
    access: runtime.access,
    operation: prepared.operation,
    fragments: prepared.fragments,
    variables,
    resolveStatic: (field) => resolveStaticField(runtime.schema, prepared.operation, prepared.fragments, variables, field),
    ...(placeholder === undefined ? {} : { placeholder }),
  });
}

/** Parse, validate and choose the operation: what depends only on the role and the request's text. */
function prepareDocument(schema: GraphQLSchema, request: GraphqlRequest): PreparedDocument {
  if (documentTextTooDeep(request.query)) return { kind: 'refused', body: graphqlErrorBody([errors.documentTooDeep('$.query', 'brackets', MAX_DOCUMENT_DEPTH)]) };
  let document;
  try {
    document = parse(request.query);
  } catch {
    return { kind: 'refused', body: graphqlErrorBody([errors.invalidGraphqlQuery('$.query')]) };
  }
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = chooseOperation(operations, request.operationName);
  if (operation instanceof ServiceError) return { kind: 'refused', body: graphqlErrorBody([operation]) };
  const unserved = unservedOperation(schema, operation);
  if (unserved !== null) return { kind: 'refused', body: unserved };

  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  // Before validation, whose cost grows with the nesting; every operation and fragment, since all are validated (used or not).
  if ([...operations, ...fragments.values()].some((candidate) => selectionsTooDeep(candidate.selectionSet, fragments))) {
    return { kind: 'refused', body: graphqlErrorBody([errors.documentTooDeep('$.query', 'selections', MAX_DOCUMENT_DEPTH)]) };
  }

  const { problems, facts } = validateLeniently(schema, document);
  if (problems.length > 0) return { kind: 'refused', body: graphqlErrorBody([hasuraValidationError(problems, document)]) };
  return { kind: 'ready', document, operation, fragments, lenient: facts, plans: [], subscriptionPlans: [] };
}

/** The operation to run, or Hasura's complaint about the choice. */
function chooseOperation(operations: OperationDefinitionNode[], name: string | null | undefined): OperationDefinitionNode | ServiceError {
  if (name !== undefined && name !== null) return operations.find((operation) => operation.name?.value === name) ?? errors.noSuchOperation('$', name);
  if (operations.length === 1) return operations[0]!;
  return errors.operationNameRequired('$');
}
