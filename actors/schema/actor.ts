import type { KV } from '@nats-io/kv';
import type { Actor } from '../../src/actor/actor.js';
import { actorRequest } from '../../src/bus/actor-request.js';
import { Bus, JsonReply } from '../../src/bus/bus.js';
import type { QueryEndpoint, RequestCancel } from '../../src/bus/messages/requests.js';
import type { SubscriptionPlanRequest } from '../../src/bus/messages/subscriptions.js';
import { ensureKv } from '../../src/bus/jetstream.js';
import { encodeJson } from '../../src/bus/wire.js';
import { encodeJsonWithRaw } from '../../src/bus/raw-json.js';
import { MetadataStore } from '../../src/metadata/store.js';
import { CHANGE_LOG_SCHEMA, installCatalogChangeLog } from '../../src/pg/catalog-change-log.js';
import { postgresUnavailable } from '../../src/pg/errors.js';
import type { BoundedPool } from '../../src/pg/bounded-client.js';
import { FairShare } from '../../src/pg/fair-share.js';
import { createPool } from '../../src/pg/pool.js';
import { validate } from '../../src/schemas/validator.js';
import type { Session } from '../../src/session/session.js';
import { handleGraphql, type GraphqlMessage } from './execution/graphql-handler.js';
import { InFlightRequests } from './execution/in-flight.js';
import { RateLimiter } from './execution/rate-limiter.js';
import { SchemaHost } from './host.js';
import { probeRemoteSchemas } from './remote/probe.js';
import { ensureSnapshotPointers } from './remote/snapshot-pointers.js';
import { runQuery } from './query-runner.js';
import { typedLog } from '../../src/log/log-types.js';
import { recordGraphql } from '../../src/metrics/graphql-outcome.js';

interface MetadataChanged {
  resource_version: number;
  instance: string;
}

function requestType(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && typeof (body as { type?: unknown }).type === 'string' ? (body as { type: string }).type : undefined;
}

/** A minute's rate limit counts are read during the next minute, and may go after that. */
const RATE_COUNT_TTL_MS = 3 * 60_000;

/** How often an instance checks the store for a change whose broadcast it may have missed. */
const STALENESS_CHECK_MS = 10_000;

/**
 * The schema actor: sole owner of the metadata object. It answers `<p>.query`
 * (metadata operations), `<p>.graphql` and `<p>.health`, and rebuilds its state when
 * any instance announces a change on `<p>.metadata.changed`.
 */
export const schemaActor: Actor = {
  name: 'schema',
  async start(context) {
    const { bus, config, log } = context;
    const pool = createPool(context.config.databaseUrl!, { max: config.pgConnections, applicationName: `service-graphql-schema-${context.instance}`, statementTimeoutMs: config.statementTimeout * 1000, jit: config.pgJit, pipeline: true });
    const store = new MetadataStore(pool);
    await store.setUp();
    await ensureSnapshotPointers(pool);
    const ask = () => actorRequest(bus, { requestId: Bus.newRequestId(), timeoutMs: config.busTimeoutMs });
    const outages = await probeRemoteSchemas(pool, (await store.read()).metadata, ask(), log);
    const metrics = context.metrics;
    if (config.catalogChangeLog && !(await installCatalogChangeLog(pool))) log.info(`the catalog change log is not installed (it needs a superuser, owning schema ${CHANGE_LOG_SCHEMA} if it exists, on a server that runs query_to_xml): metadata operations scan the system catalogs instead`);
    const host = await SchemaHost.load(store, pool, log, { changeLog: config.catalogChangeLog }, { permissionsEnabled: config.enableRemoteSchemaPermissions, outages }, { inferFunctionPermissions: config.inferFunctionPermissions, enableAllowlist: config.enableAllowlist, stringifyNumericTypes: config.stringifyNumericTypes, log, ...(metrics === undefined ? {} : { onPlanCache: (hit: boolean) => metrics.recordPlanCache(hit) }) }, ask);
    const subjects = bus.subjects;

    context.serve(subjects.query, async (request) => {
      const message = validate<{ session: Session; body: unknown; endpoint?: QueryEndpoint }>('bus/query-request', request.json());
      try {
        const response = await runQuery(host, message.body, message.session, log.child({ requestId: request.requestId }), (committed) => {
          const changed: MetadataChanged = { resource_version: committed.resourceVersion, instance: context.instance };
          const type = requestType(message.body);
          // After this turn's reply: nats.js writes its socket at the next microtask checkpoint,
          // which came before the reply's, so every operation's answer waited on the
          // broadcast's write(2) (0.3-0.6 ms between COMMIT and the reply in an strace of the
          // 500-table benchmark).
          // This instance already serves the change; the others hear of it a moment later.
          setImmediate(() => {
            try {
              bus.publish(subjects.metadataChanged, changed);
              context.announce('metadata', { resource_version: committed.resourceVersion, type });
            } catch (error) {
              // The connection closed as the engine stops: the other instances' staleness check finds the change.
              log.warn({ err: error, resource_version: committed.resourceVersion }, 'the metadata change could not be broadcast');
            }
          });
        }, actorRequest(bus, { requestId: request.requestId, timeoutMs: config.busTimeoutMs }), message.endpoint, config.enableAllowlist);
        return encodeJsonWithRaw(response);
      } catch (error) {
        // A database that cannot be reached is the user's to fix, not a bug of ours.
        throw postgresUnavailable(error, '$') ?? error;
      }
    });

    let counts: Promise<KV> | null = null;
    const rateCounts = (): Promise<KV> => {
      counts ??= ensureKv(bus.connection, subjects.rateLimitsBucket, { history: 1, ttl: RATE_COUNT_TTL_MS, replicas: config.eventsStreamReplicas });
      counts.catch(() => (counts = null));
      return counts;
    };
    const share = new FairShare(config.pgConnections, { rolePercent: config.pgRoleShare, sessionPercent: config.pgSessionShare });
    const db: BoundedPool = { pool, share, connectionString: config.databaseUrl!, log };
    const graphqlOptions = {
      db,
      timeoutMs: config.busTimeoutMs,
      statementTimeoutMs: config.statementTimeout * 1000,
      sendRequestToAuth: config.authHook !== undefined && config.authHookMode === 'POST',
      rateLimiter: new RateLimiter(rateCounts),
      trustProxyHeaders: config.trustProxyHeaders,
      log,
      queryLog: typedLog(log, 'query-log', config.enabledLogTypes),
      counters: { rateLimited: 0 },
      onRateLimited: metrics === undefined ? undefined : () => metrics.recordRateLimited(),
    };
    const inFlight = new InFlightRequests();
    context.serve(subjects.graphql, async (request) => {
      const message = validate<GraphqlMessage>('bus/graphql-request', request.json());
      const running = inFlight.begin(message.cancel_key);
      try {
        if (metrics === undefined) return await handleGraphql(host, bus, message, request.requestId, running.cancellation, graphqlOptions, request.trace);
        const started = performance.now();
        const reply = await handleGraphql(host, bus, message, request.requestId, running.cancellation, graphqlOptions, request.trace).catch((error: unknown) => {
          // An unexpected failure is answered by the bus as an error reply: a failed request all the same.
          recordGraphql(metrics, null, 0);
          throw error;
        });
        recordGraphql(metrics, reply, (performance.now() - started) / 1000);
        return reply;
      } finally {
        running.end();
      }
    });
    context.listen<RequestCancel>(subjects.requestCancel, async (message) => {
      inFlight.cancel(validate<RequestCancel>('bus/request-cancel', message).cancel_key);
    });

    context.serve(subjects.subscriptionPlan, async (request) => {
      const message = validate<SubscriptionPlanRequest>('bus/subscription-plan-request', request.json());
      const graphqlRequest = { query: message.query, variables: message.variables, operationName: message.operationName };
      const execution = { db, requestId: request.requestId, bus, headers: {}, timeoutMs: config.busTimeoutMs };
      return new JsonReply(await host.state.graphql.planSubscription(graphqlRequest, message.session, execution));
    });

    context.serve(subjects.health, async () => {
      let database = true;
      try {
        await pool.query('select 1');
      } catch {
        database = false;
      }
      return encodeJson({ database, consistent: host.state.report.inconsistencies.length === 0 });
    });

    context.listen<MetadataChanged>(subjects.metadataChanged, async (message) => {
      const changed = validate<MetadataChanged>('bus/metadata-changed', message);
      // Every commit was checked against a freshly read catalog, and a reload keeps the
      // version: so any change from another instance means "re-read both".
      if (changed.instance === context.instance || changed.resource_version < host.state.resourceVersion) return;
      await host.exclusive(() => host.refresh({ catalog: true }));
    });

    const staleness = setInterval(() => {
      host.exclusive(() => host.refresh()).catch((error: unknown) => log.warn({ err: error }, 'metadata staleness check failed'));
    }, STALENESS_CHECK_MS);
    staleness.unref();

    context.reportGauges(() => ({
      resource_version: host.state.resourceVersion,
      inconsistent_objects: host.state.report.inconsistencies.length,
      pg_pool_total: pool.totalCount,
      pg_pool_idle: pool.idleCount,
      pg_pool_waiting: pool.waitingCount,
      pg_share_waiting: share.waiting,
      requests_in_flight: inFlight.size,
      rate_limited: graphqlOptions.counters.rateLimited,
    }));

    return {
      async stop() {
        clearInterval(staleness);
        await pool.end();
      },
    };
  },
};
