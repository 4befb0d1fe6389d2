import { mergeTypeDefs } from '@graphql-tools/merge';
import { parse, print, printSchema } from 'graphql';
import type { RoleViewReply, RoleViewRequest } from '../../src/bus/messages/remote-schema.js';
import { errors } from '../../src/errors/errors.js';
import type { RemoteModels } from './model.js';

/**
 * `<p>.remote.role_view`: the remote schemas one role sees, merged into one SDL (same-named
 * types merge; the schema actor's consistency check has left out the remotes whose types
 * conflict), with the remote that serves each root field. The schema actor merges the SDL
 * with its tables' schema and routes operations by these fields.
 */
export async function roleView(models: RemoteModels, request: RoleViewRequest): Promise<RoleViewReply> {
  const routes: RoleViewReply['routes'] = { query: {}, mutation: {} };
  const subscriptionFields: string[] = [];
  const documents = await Promise.all(
    request.remotes.map(async (source) => {
      const remote = await models.view(source).catch((error: unknown) => {
        throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(source.name)} cannot be served: ${(error as Error).message}`);
      });
      for (const name of Object.keys(remote.served.getQueryType()?.getFields() ?? {})) routes.query[name] = source.name;
      for (const name of Object.keys(remote.served.getMutationType()?.getFields() ?? {})) routes.mutation[name] = source.name;
      subscriptionFields.push(...remote.model.rootFields.subscription);
      return parse(printSchema(remote.served));
    }),
  );
  const sdl = documents.length === 0 ? '' : print(mergeTypeDefs(documents, { useSchemaDefinition: true, forceSchemaDefinition: true, throwOnConflict: true }));
  return { sdl, routes, subscription_fields: subscriptionFields };
}
