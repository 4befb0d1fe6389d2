import type { ActorRequest } from '../../src/bus/actor-request.js';
import type { QueryEndpoint } from '../../src/bus/messages/requests.js';
import { errors } from '../../src/errors/errors.js';
import { invariant } from '../../src/errors/service-error.js';
import type { Logger } from '../../src/log/logger.js';
import { normalizeMetadata } from '../../src/metadata/normalize.js';
import type { Metadata } from '../../src/metadata/types.js';
import type { Catalog } from '../../src/pg/catalog.js';
import type { BatchedLogRead } from '../../src/pg/catalog-cache.js';
import type { PoolClient } from '../../src/pg/pool.js';
import { validate } from '../../src/schemas/validator.js';
import { isAdmin, type Session } from '../../src/session/session.js';
import type { ConsistencyReport } from './consistency/check.js';
import { newInconsistencies } from './consistency/inconsistency.js';
import { roleCycles } from './models/inherited-roles.js';
import { operationFor, requiredResourceVersion } from './endpoints/endpoint.js';
import type { QueryRequest } from './endpoints/request.js';
import type { Committed, SchemaHost } from './host.js';
import type { SchemaState } from './state.js';
import type { Operation, OperationContext, OperationOutcome } from './operations/operation.js';
import { followTrackedTables } from './operations/followed-tables.js';
import { findOperation } from './operations/registry.js';

/** The metadata, catalog and report as the operations of one request leave them, step by step. */
interface Draft {
  metadata: Metadata;
  catalog: Catalog;
  report: ConsistencyReport;
  metadataChanged: boolean;
  /** An operation asked for the catalog to be re-read and served (reload_metadata, run_sql). */
  catalogReloaded: boolean;
  /** The request's database transaction (with the metadata writers' lock); null for read-only requests. */
  transaction: PoolClient | null;
  /** An operation ran the caller's SQL on the transaction's connection (Operation.runsCallerSql). */
  callerSql?: true;
}

const MAX_ATTEMPTS = 5;

/**
 * Runs one request of the JSON APIs (a single operation or a bulk). Data API requests
 * (every role, under its permissions) go to `runDataApi`; the others, for an admin session
 * only, are validated, applied to a draft of the current metadata, checked against the
 * database and committed with optimistic concurrency. SQL the request runs (run_sql) and
 * the new metadata commit in one transaction. A lost race re-reads the store and runs the
 * request again; nothing of a failed request is committed. The endpoint it came in on
 * decides which operations it may name (endpoints/).
 */
export async function runQuery(
  host: SchemaHost,
  body: unknown,
  session: Session,
  log: Logger,
  onCommitted: (committed: Committed) => void,
  ask: ActorRequest,
  endpoint: QueryEndpoint = 'v1/query',
  /** SERVICE_GRAPHQL_ENABLE_ALLOWLIST: roles are held to listed GraphQL documents, so the data API is the admin's alone. */
  allowlistEnabled = false,
): Promise<unknown> {
  const request = validate<QueryRequest>('query/request', body, '$');
  // /v1/metadata serves no data operation: its refusal comes from the endpoint's own rules below.
  const dataApi = endpoint !== 'v1/metadata' && isDataApi(request);
  if (!isAdmin(session) && (!dataApi || allowlistEnabled)) throw errors.adminOnly('$.args');
  if (dataApi) return runDataApi(host, endpoint, request, session, log, ask);
  const basedOn = requiredResourceVersion(endpoint, request);
  return host.exclusive(async () => {
    const readOnly = isReadOnly(endpoint, request, '$');
    // Only operations with no effect beyond the metadata they return: the caller's SQL, data
    // writes or a replication slot made ahead would keep what they did (sequences, the slot)
    // where the state then proves changed.
    const ahead = !readOnly && everyOperation(endpoint, request, '$', (operation) => operation.appliesAhead === true);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      // Writers take turns cluster-wide, so the optimistic check below is a safety net
      // rather than a retry loop under contention.
      const speculative = ahead && attempt === 1 ? host.speculativeCatalog() : null;
      const { draft, base, confirm } = speculative === null ? await startInOrder(host, readOnly) : await startAhead(host, speculative);
      try {
        let response: unknown;
        try {
          response = await apply(host, endpoint, request, '$', draft, session, log, base.resourceVersion, ask, confirm);
        } catch (error) {
          // An operation applied to a state the transaction does not hold failed for that state's sake, perhaps.
          if (await confirm()) throw error;
          await finish(draft, 'rollback');
          continue;
        }
        if (!(await confirm())) {
          await finish(draft, 'rollback');
          continue;
        }
        // Hasura refuses a change based on another version than the stored one (409), and ignores the version on reads.
        if (draft.metadataChanged && basedOn !== undefined && basedOn !== base.resourceVersion) throw errors.resourceVersionMismatch('$', basedOn);
        if (!draft.metadataChanged && !draft.catalogReloaded) {
          await finish(draft, 'commit');
          return response;
        }
        if (draft.metadataChanged && draft.transaction !== null) await followTrackedTables(draft.transaction, base.metadata, draft.metadata);
        // Applied ahead, nothing but metadata changed: a write that needs more than one statement is applied again in order.
        const committed = speculative !== null && draft.metadataChanged ? await writeAndCommit(host, base, draft) : await host.write(base, draft.metadataChanged ? draft.metadata : null, draft.transaction);
        if (committed === null) {
          await finish(draft, 'rollback');
          log.info({ attempt }, 'metadata changed by another instance meanwhile, or the write needed more than one statement; re-applying the operation in order');
          continue;
        }
        await finish(draft, 'commit');
        host.adopt(committed, draft.metadata, draft.catalog, draft.report);
        onCommitted(committed);
        await host.pruneCatalogChangeLog();
        return response;
      } catch (error) {
        await finish(draft, 'rollback');
        throw error;
      }
    }
    throw errors.metadataConflict('$');
  });
}

/** A request's operations begun on: the draft they apply to, the state it holds, and whether the writer's transaction holds that state too. */
interface Started {
  draft: Draft;
  base: SchemaState;
  /** Whether the draft holds what the writer's transaction holds, as of its lock (always, begun in order); rejects where the transaction could not begin. */
  confirm: () => Promise<boolean>;
}

const CONFIRMED = async (): Promise<boolean> => true;

/** The operations' draft once the writer's transaction holds the lock (a writing request), the stored version and the catalog as of holding it. */
async function startInOrder(host: SchemaHost, readOnly: boolean): Promise<Started> {
  const writer = readOnly ? null : await beginWrite(host);
  const transaction = writer?.client ?? null;
  const draft: Draft = { metadata: host.state.metadata, catalog: host.state.catalog, report: host.state.report, metadataChanged: false, catalogReloaded: false, transaction };
  try {
    await host.refresh(writer === null ? {} : { version: writer.version });
    const base = host.state;
    draft.metadata = base.metadata;
    draft.report = base.report;
    // Hasura sees a table created in psql without a reload: operations that may change
    // metadata check it against a catalog read now, not the one of the last change.
    draft.catalog = readOnly ? base.catalog : await host.introspect(transaction ?? undefined, { remoteSnapshots: (base.metadata.remote_schemas ?? []).length > 0, ...(writer?.logged === undefined ? {} : { logged: writer.logged }) });
    return { draft, base, confirm: CONFIRMED };
  } catch (error) {
    await finish(draft, 'rollback');
    throw error;
  }
}

/**
 * The operations' draft on the served state and the catalog kept from the last read, while
 * the writer's first round trip (BEGIN, the lock, the version, the catalog change log) is on
 * its way: applying the operations took about as long as that round trip, and the two now
 * overlap. The draft's reads (an enum table's rows) go on the transaction's connection,
 * behind the round trip; its operations ask for nothing else (Operation.appliesAhead).
 * `confirm` then tells whether the stored version and the catalog are still the
 * ones applied to (no other instance wrote, no DDL ran since); where not, the transaction
 * is rolled back and the request applied again in order.
 */
async function startAhead(host: SchemaHost, catalog: Catalog): Promise<Started> {
  const client = await host.db.connect();
  const base = host.state;
  const draft: Draft = { metadata: base.metadata, catalog, report: base.report, metadataChanged: false, catalogReloaded: false, transaction: client };
  let queued!: () => void;
  const inQueue = new Promise<void>((resolve) => (queued = resolve));
  const begun = host.beginWrite(client, queued);
  // Its failure is confirm's to report, when the operations are done with the draft.
  begun.catch(() => undefined);
  try {
    // The batch may first prepare its read on a new connection: the draft's statements go behind the batch.
    await Promise.race([inQueue, begun]);
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  let confirmed: Promise<boolean> | null = null;
  const confirm = (): Promise<boolean> =>
    (confirmed ??= begun.then(async (writer) => {
      // Begun again, the first batch having failed: what the draft queued behind it ran in a failed transaction.
      if (writer.again === true || writer.version !== base.resourceVersion) return false;
      const read = await host.introspect(client, { remoteSnapshots: false, ...(writer.logged === undefined ? {} : { logged: writer.logged }) });
      return read.relations === catalog.relations;
    }));
  return { draft, base, confirm };
}

/**
 * A request of data API operations only (rows, not metadata) runs beside the others
 * rather than queued behind metadata writers, as GraphQL does: on the metadata the
 * instance serves (its consistent part, as GraphQL sees it), its writes in one
 * transaction without the metadata writers' lock, all or nothing.
 */
async function runDataApi(host: SchemaHost, endpoint: QueryEndpoint, request: QueryRequest, session: Session, log: Logger, ask: ActorRequest): Promise<unknown> {
  const state = host.state;
  const transaction = isReadOnly(endpoint, request, '$') ? null : await beginTransaction(host);
  const draft: Draft = { metadata: state.report.consistent, catalog: state.catalog, report: state.report, metadataChanged: false, catalogReloaded: false, transaction };
  try {
    const response = await apply(host, endpoint, request, '$', draft, session, log, state.resourceVersion, ask, CONFIRMED);
    await finish(draft, 'commit');
    return response;
  } catch (error) {
    await finish(draft, 'rollback');
    throw error;
  }
}

/** A transaction on its own connection. */
async function beginTransaction(host: SchemaHost): Promise<PoolClient> {
  return (await begun(host, (client) => client.query('begin'))).client;
}

/** A metadata writer's transaction on its own connection, holding the writers' lock, the stored version as of taking it and the catalog change log as read then. */
async function beginWrite(host: SchemaHost): Promise<{ client: PoolClient; version: number; logged?: BatchedLogRead }> {
  const { client, result } = await begun(host, (client) => host.beginWrite(client));
  return { client, ...result };
}

/** A connection of the pool with `begin` run on it; one whose begin failed is let go of, not pooled. */
async function begun<T>(host: SchemaHost, begin: (client: PoolClient) => Promise<T>): Promise<{ client: PoolClient; result: T }> {
  const client = await host.db.connect();
  try {
    return { client, result: await begin(client) };
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

/** The draft's metadata written and its transaction committed in one round trip (SchemaHost.writeAndCommit); the transaction is over either way. */
async function writeAndCommit(host: SchemaHost, base: SchemaState, draft: Draft): Promise<Committed | null> {
  const client = draft.transaction!;
  draft.transaction = null;
  try {
    const committed = await host.writeAndCommit(base, draft.metadata, client);
    client.release();
    return committed;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

async function finish(draft: Draft, outcome: 'commit' | 'rollback'): Promise<void> {
  const client = draft.transaction;
  if (client === null) return;
  draft.transaction = null;
  try {
    await client.query(outcome);
    client.release(draft.callerSql === true);
  } catch (error) {
    client.release(error as Error);
    if (outcome === 'commit') throw error;
  }
}

async function apply(
  host: SchemaHost,
  endpoint: QueryEndpoint,
  given: QueryRequest,
  path: string,
  draft: Draft,
  session: Session,
  log: Logger,
  resourceVersion: number,
  ask: ActorRequest,
  /** Started.confirm: CONFIRMED unless applied ahead, when the operations may not ask for the transaction or the catalog anew. */
  confirm: () => Promise<boolean>,
): Promise<unknown> {
  const argsPath = `${path}.args`;
  const request = operationFor(endpoint, given, path);
  if (request.type === 'bulk') {
    const items = validate<QueryRequest[]>('query/bulk', request.args ?? [], argsPath);
    const responses: unknown[] = [];
    for (const [index, item] of items.entries()) {
      responses.push(await apply(host, endpoint, item, `${argsPath}[${index}]`, draft, session, log, resourceVersion, ask, confirm));
    }
    return responses;
  }
  const operation = findOperation(request.type, request.version, path);
  if (operation.runsCallerSql === true) draft.callerSql = true;
  const raw = request.args ?? {};
  const args = validate<unknown>(operation.argsSchema, operation.upgradeArgs ? operation.upgradeArgs(raw) : raw, argsPath);
  const context: OperationContext = {
    metadata: draft.metadata,
    resourceVersion,
    catalog: draft.catalog,
    inconsistencies: draft.report.inconsistencies,
    remotes: draft.report.remotes,
    session,
    db: host.db,
    log,
    argsPath,
    transaction: async () => {
      // Only read-only operations run without one, and they never ask.
      invariant(draft.transaction !== null, `${request.type} asked for the request transaction but is marked read-only`);
      invariant(confirm === CONFIRMED, `${request.type} asked for the request transaction but is marked appliesAhead`);
      return draft.transaction;
    },
    reader: () => draft.transaction ?? host.db,
    reloadCatalog: async () => {
      invariant(confirm === CONFIRMED, `${request.type} reloaded the catalog but is marked appliesAhead`);
      draft.catalogReloaded = true;
      // Inside the request's transaction the catalog shows its uncommitted DDL.
      return (draft.catalog = await host.introspect(draft.transaction ?? undefined, { force: true }));
    },
    check: (metadata, catalog) => host.check(metadata, catalog, ask, draft.transaction ?? host.db),
    request: ask,
  };
  const outcome = await operation.run(args, context);
  await settle(host, outcome, draft, argsPath, ask);
  return outcome.response;
}

/** Checks what an operation left against the database and moves the draft forward. */
async function settle(host: SchemaHost, outcome: OperationOutcome, draft: Draft, argsPath: string, ask: ActorRequest): Promise<void> {
  const metadata = outcome.metadata === undefined ? draft.metadata : normalizeMetadata(outcome.metadata);
  if (outcome.metadata === undefined && !outcome.catalogChanged && outcome.consistency === undefined) return;
  // Hasura cannot build a schema at all from roles that inherit from themselves.
  const cycles = roleCycles(metadata.inherited_roles ?? []);
  if (cycles.length > 0) throw errors.roleCycle(argsPath, cycles);
  const report = await host.check(metadata, draft.catalog, ask, draft.transaction ?? host.db);
  const policy = outcome.consistency ?? 'no-new';
  if (policy === 'none-at-all' && report.inconsistencies.length > 0) {
    throw errors.inconsistentMetadata(argsPath).withInternal(report.inconsistencies);
  }
  if (policy === 'no-new' && outcome.metadata !== undefined) {
    const added = newInconsistencies(draft.report.inconsistencies, report.inconsistencies);
    if (added.length > 0) throw errors.invalidConfiguration(argsPath, added.map((item) => item.reason).join('; ')).withInternal(added);
  }
  draft.report = report;
  if (outcome.metadata !== undefined) {
    draft.metadata = metadata;
    draft.metadataChanged = true;
  }
}

/** Whether every operation of the request is of the data API; malformed parts count as not. */
function isDataApi(request: QueryRequest): boolean {
  if (request.type === 'bulk') return Array.isArray(request.args) && request.args.length > 0 && request.args.every((item: unknown) => typeof item === 'object' && item !== null && isDataApi(item as QueryRequest));
  try {
    return findOperation(request.type, request.version, '$').dataApi === true;
  } catch {
    return false;
  }
}

/** Whether every operation of the request only reads; malformed or refused parts count as not (applying them reports why). */
function isReadOnly(endpoint: QueryEndpoint, given: QueryRequest, path: string): boolean {
  return everyOperation(endpoint, given, path, (operation) => operation.readOnly === true);
}

/** Whether `holds` holds for every operation of the request; malformed or refused parts count as not. */
function everyOperation(endpoint: QueryEndpoint, given: QueryRequest, path: string, holds: (operation: Operation<unknown>) => boolean): boolean {
  try {
    const request = operationFor(endpoint, given, path);
    if (request.type === 'bulk') return Array.isArray(request.args) && request.args.every((item: unknown) => typeof item === 'object' && item !== null && everyOperation(endpoint, item as QueryRequest, path, holds));
    return holds(findOperation(request.type, request.version, path));
  } catch {
    return false;
  }
}
