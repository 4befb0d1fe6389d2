import type { HandlerReply } from '../../src/bus/responder.js';
import { encodeJson } from '../../src/bus/wire.js';
import { resolveDefinition, type ResolvedRemote } from './definition.js';
import { upstreamHeaders } from './headers.js';
import { SET_COOKIE_META, type ExecuteRequest } from './messages.js';
import { errors } from '../../src/errors/errors.js';
import type { UpstreamClient, UpstreamResponse } from './upstream-client.js';

/**
 * Runs one GraphQL request on a remote server (interface 4.3, compat-facts 7.2): the
 * remote's headers and timeout, the response passed on as received when it carries no
 * errors, and `{"data":null,"errors":[...]}` with the remote's own errors otherwise; the
 * remote's `Set-Cookie` headers go back in the reply's meta.
 */
export async function executeUpstream(client: UpstreamClient, request: ExecuteRequest): Promise<HandlerReply> {
  const remote = resolvedDefinition(request.definition);
  const body = JSON.stringify({ query: request.query, variables: request.variables, ...(request.operationName === null ? {} : { operationName: request.operationName }) });
  const response = await client.post(remote.url, body, upstreamHeaders(remote, request.session, request.headers), remote.timeoutMs);
  const meta: Record<string, string> = response.setCookies.length > 0 ? { [SET_COOKIE_META]: JSON.stringify(response.setCookies) } : {};
  if (passesAsIs(response)) return { body: response.body, meta };
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw errors.remoteSchemaFailed('$', `the remote server at ${remote.url} answered HTTP ${response.status} with a body that is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw errors.remoteSchemaFailed('$', `the remote server at ${remote.url} answered HTTP ${response.status} without a GraphQL response object`);
  }
  const result = parsed as { data?: unknown; errors?: unknown };
  if (Array.isArray(result.errors) && result.errors.length > 0) return { body: encodeJson({ data: null, errors: result.errors }), meta };
  if (response.status < 200 || response.status >= 300 || result.data === undefined) {
    throw errors.remoteSchemaFailed('$', `the remote server at ${remote.url} answered HTTP ${response.status} without data or errors`);
  }
  return { body: response.body, meta };
}

/**
 * Definitions resolved, by definition object: in-process delivery hands over the schema
 * actor's own metadata objects, so a repeated call parses no URL and reads no
 * environment variable.
 */
const resolved = new WeakMap<ExecuteRequest['definition'], ResolvedRemote>();

function resolvedDefinition(definition: ExecuteRequest['definition']): ResolvedRemote {
  let remote = resolved.get(definition);
  if (remote === undefined) {
    remote = resolveDefinition(definition, '$');
    resolved.set(definition, remote);
  }
  return remote;
}

const DATA_KEY = Buffer.from('"data"');
const ERRORS_KEY = Buffer.from('"errors"');

/**
 * A 2xx JSON object with `"data"` and without the text `"errors"` anywhere is a
 * successful GraphQL response: its bytes go to the client unparsed. Anything else is
 * parsed and checked below.
 */
function passesAsIs(response: UpstreamResponse): boolean {
  const { body } = response;
  return response.status >= 200 && response.status < 300 && body[0] === 0x7b && body.includes(DATA_KEY) && !body.includes(ERRORS_KEY);
}
