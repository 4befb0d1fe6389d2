import type { Actor } from '../../src/actor/actor.js';
import { JsonReply } from '../../src/bus/bus.js';
import { errors } from '../../src/errors/errors.js';
import { validate } from '../../src/schemas/validator.js';
import { resolveDefinition } from './definition.js';
import { executeUpstream } from './execute.js';
import { upstreamHeaders } from './headers.js';
import { INTROSPECTION_QUERY, schemaFromIntrospection } from './introspection.js';
import type { ExecuteRequest, IntrospectRequest, ValidatePermissionRequest } from './messages.js';
import { compileRolePermission, roleSchemaFailureMessage } from './permissions/role-view.js';
import { UpstreamClient } from './upstream-client.js';
import { makeSession } from '../../src/session/session.js';

/**
 * The remote-schema actor (ARCHITECTURE "remote-schema"): the engine's only HTTP client
 * of remote GraphQL servers. It holds no metadata: every request carries the remote's
 * definition, so any instance can answer any request. The introspection results it
 * returns are cached by the schema actor with the metadata (service_catalog), which is
 * what makes one refresh serve the whole cluster.
 */
export const remoteSchemaActor: Actor = {
  name: 'remote-schema',
  async start(context) {
    const { bus } = context;
    const client = new UpstreamClient();
    const counters = { executed: 0, introspected: 0 };

    context.serve(bus.subjects.remote('introspect'), async (request) => {
      const message = validate<IntrospectRequest>('bus/remote-introspect', request.json());
      const remote = resolveDefinition(message.definition, '$.definition');
      const headers = upstreamHeaders({ ...remote, forwardClientHeaders: false }, makeSession('admin'), {});
      const response = await client.post(remote.url, JSON.stringify({ query: INTROSPECTION_QUERY }), headers, remote.timeoutMs);
      const raw = response.body.toString('utf8');
      schemaFromIntrospection(raw, message.name);
      counters.introspected++;
      // The text as the remote sent it: the cache keeps it as received (introspection.ts).
      return new JsonReply({ introspection: raw });
    });

    context.serve(bus.subjects.remote('validate_permission'), async (request) => {
      const message = validate<ValidatePermissionRequest>('bus/remote-validate-permission', request.json());
      const compiled = compileRolePermission(schemaFromIntrospection(message.introspection, message.name), message.schema);
      if (!compiled.ok) throw errors.remotePermissionInvalid('$', roleSchemaFailureMessage(compiled.problems));
      return new JsonReply({ valid: true });
    });

    context.serve(bus.subjects.remote('execute'), async (request) => {
      const message = validate<ExecuteRequest>('bus/remote-execute', request.json());
      counters.executed++;
      return executeUpstream(client, message);
    });

    context.reportGauges(() => ({ remote_executed: counters.executed, remote_introspected: counters.introspected }));
    return {
      async stop() {
        client.close();
      },
    };
  },
};
