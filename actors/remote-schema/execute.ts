import { encodeText } from '../../src/bus/wire.js';
import { resolveDefinition } from './definition.js';
import { upstreamHeaders } from './headers.js';
import type { ExecuteRequest } from './messages.js';
import { remoteSchemaError, type UpstreamClient } from './upstream-client.js';

/**
 * Runs one GraphQL request on a remote server (interface 4.3, compat-facts 7.2): the
 * remote's headers and timeout, the response passed on as received when it carries no
 * errors, and `{"data":null,"errors":[...]}` with the remote's own errors otherwise.
 */
export async function executeUpstream(client: UpstreamClient, request: ExecuteRequest): Promise<Uint8Array> {
  const remote = resolveDefinition(request.definition, '$');
  const body = JSON.stringify({ query: request.query, variables: request.variables, ...(request.operationName === null ? {} : { operationName: request.operationName }) });
  const response = await client.post(remote.url, body, upstreamHeaders(remote, request.session, request.headers), remote.timeoutMs);
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw remoteSchemaError(`the remote server at ${remote.url} answered HTTP ${response.status} with a body that is not JSON`, '$', 200);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw remoteSchemaError(`the remote server at ${remote.url} answered HTTP ${response.status} without a GraphQL response object`, '$', 200);
  }
  const result = parsed as { data?: unknown; errors?: unknown };
  if (Array.isArray(result.errors) && result.errors.length > 0) return encodeText(JSON.stringify({ data: null, errors: result.errors }));
  if (response.status < 200 || response.status >= 300 || result.data === undefined) {
    throw remoteSchemaError(`the remote server at ${remote.url} answered HTTP ${response.status} without data or errors`, '$', 200);
  }
  return response.body;
}
