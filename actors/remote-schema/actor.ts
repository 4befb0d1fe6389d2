import type { Actor } from '../../src/actor/actor.js';
import { JsonReply } from '../../src/bus/bus.js';
import type { DescribeReply, DescribeRequest, ExecuteRequest, IntrospectReply, RemoteDefinitionRequest, RoleViewRequest, SnapshotReply, SnapshotRequest } from '../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../src/bus/subjects.js';
import { REPLY_META } from '../../src/bus/wire.js';
import { errors } from '../../src/errors/errors.js';
import { createPool } from '../../src/pg/pool.js';
import { validate } from '../../src/schemas/validator.js';
import { makeSession } from '../../src/session/session.js';
import { checkCustomization, resolveDefinition } from './definition.js';
import { describeRemotes } from './describe.js';
import { Forwarder } from './forward/forwarder.js';
import { upstreamHeaders } from './headers.js';
import { INTROSPECTION_QUERY, schemaFromIntrospection } from './introspection.js';
import { RemoteModels } from './model.js';
import { roleView } from './role-view.js';
import { SnapshotStore } from './snapshots.js';
import { UpstreamClient } from './upstream-client.js';

/** Connections of the actor's pool: it reads and writes introspection snapshots, nothing on the request path. */
const POOL_SIZE = 4;

/**
 * The remote-schema actor (ARCHITECTURE "remote-schema"): owns remote schemas end to end.
 * It introspects remotes and keeps their answers (snapshots.ts), serves their
 * customization, per-role views with presets and merged SDL, describes them for the
 * schema actor's consistency check, and forwards operations with their responses
 * renamed back. It holds no metadata: every request carries the remotes it is about (a
 * definition and a snapshot id), so any instance answers any request, and what it builds
 * from them is kept by content.
 */
export const remoteSchemaActor: Actor = {
  name: 'remote-schema',
  async start(context) {
    const { bus, config } = context;
    const pool = createPool(config.databaseUrl!, { max: POOL_SIZE, applicationName: `service-graphql-remote-schema-${context.instance}`, jit: config.pgJit });
    const store = await SnapshotStore.open(pool);
    const models = new RemoteModels(store);
    const client = new UpstreamClient();
    const forwarder = new Forwarder(models, client);
    const counters = { executed: 0, introspected: 0 };
    const subject = bus.subjects.remote;

    const checkDefinition = (message: RemoteDefinitionRequest) => {
      const remote = resolveDefinition(message.definition, '$.definition');
      checkCustomization(message.definition, '$.definition');
      return remote;
    };

    context.serve(subject(REMOTE_VERBS.check), async (request) => {
      checkDefinition(validate<RemoteDefinitionRequest>('bus/remote-definition', request.json()));
      return new JsonReply({});
    });

    context.serve(subject(REMOTE_VERBS.introspect), async (request) => {
      const message = validate<RemoteDefinitionRequest>('bus/remote-definition', request.json());
      const remote = checkDefinition(message);
      const headers = upstreamHeaders({ ...remote, forwardClientHeaders: false }, makeSession('admin'), {});
      const response = await client.post(remote.url, JSON.stringify({ query: INTROSPECTION_QUERY }), headers, remote.timeoutMs);
      // Kept as the remote sent it: introspect_remote_schema answers it verbatim (compat-facts 7.1).
      const raw = response.body.toString('utf8');
      schemaFromIntrospection(raw, message.name);
      counters.introspected++;
      return new JsonReply({ snapshot: await store.store(raw) } satisfies IntrospectReply);
    });

    context.serve(subject(REMOTE_VERBS.snapshot), async (request) => {
      const message = validate<SnapshotRequest>('bus/remote-snapshot', request.json());
      const introspection = await store.read(message.snapshot);
      if (introspection === null) throw errors.remoteSchemaFailed('$', 'the introspection of this remote schema is no longer stored; reload it');
      return new JsonReply({ introspection } satisfies SnapshotReply);
    });

    context.serve(subject(REMOTE_VERBS.describe), async (request) => {
      const message = validate<DescribeRequest>('bus/remote-describe', request.json());
      return new JsonReply({ remotes: await describeRemotes(models, message) } satisfies DescribeReply);
    });

    context.serve(subject(REMOTE_VERBS.roleView), async (request) => {
      const message = validate<RoleViewRequest>('bus/remote-role-view', request.json());
      return new JsonReply(await roleView(models, message));
    });

    context.serve(subject(REMOTE_VERBS.execute), async (request) => {
      const message = validate<ExecuteRequest>('bus/remote-execute', request.json());
      counters.executed++;
      const answer = await forwarder.execute(message, request.trace);
      const meta: Record<string, string> = answer.setCookies.length === 0 ? {} : { [REPLY_META.setCookie]: JSON.stringify(answer.setCookies) };
      return { body: answer.body, meta };
    });

    context.reportGauges(() => ({ remote_executed: counters.executed, remote_introspected: counters.introspected, pg_pool_total: pool.totalCount, pg_pool_waiting: pool.waitingCount }));
    return {
      async stop() {
        client.close();
        await pool.end();
      },
    };
  },
};
