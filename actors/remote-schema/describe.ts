import type { DescribeRequest, RemoteDescription } from '../../src/bus/messages/remote-schema.js';
import { typeShapes } from '../../src/graphql/type-shape.js';
import { UnusableRemoteError, type RemoteModels } from './model.js';

/**
 * `<p>.remote.describe`: what the schema actor needs to decide each remote's consistency
 * (interface 4.3, compat-facts 7.2, 7.3): whether its snapshot can be served under its
 * customization, and if so its served root fields, the shapes of its served types and,
 * per role, why the role's SDL does not fit the remote (null when it does). Only an
 * unusable remote or permission is an answer; anything else (the database gone) fails
 * the request, so that nothing is declared inconsistent for a passing outage.
 */
export async function describeRemotes(models: RemoteModels, request: DescribeRequest): Promise<Record<string, RemoteDescription>> {
  const described = await Promise.all(request.remotes.map(async (remote): Promise<[string, RemoteDescription]> => [remote.name, await describeRemote(models, remote)]));
  return Object.fromEntries(described);
}

async function describeRemote(models: RemoteModels, remote: DescribeRequest['remotes'][number]): Promise<RemoteDescription> {
  let model;
  try {
    model = await models.model(remote);
  } catch (error) {
    if (error instanceof UnusableRemoteError) return { ok: false, reason: error.message };
    throw error;
  }
  const permissions: Record<string, string | null> = {};
  for (const { role, schema } of remote.permissions) {
    try {
      await models.view({ ...remote, permission: schema });
      permissions[role] = null;
    } catch (error) {
      if (!(error instanceof UnusableRemoteError)) throw error;
      permissions[role] = error.message;
    }
  }
  return { ok: true, root_fields: model.rootFields, types: typeShapes(model.served), permissions };
}
