import { encodeJson } from '../../../src/bus/wire.js';
import { errors } from '../../../src/errors/errors.js';
import type { Session } from '../../../src/session/session.js';
import type { ResolvedRemote } from '../definition.js';
import { upstreamHeaders } from '../headers.js';
import type { UpstreamClient, UpstreamResponse } from '../upstream-client.js';
import { traceHeaders } from '../../../src/tracing/propagation.js';
import { SpanKind, traced, type TraceContext } from '../../../src/tracing/tracer.js';

/** One upstream GraphQL request, its operation already in the remote's names. */
export interface UpstreamCall {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
  session: Session;
  /** The client's request headers, for `forward_client_headers`. */
  headers: Record<string, string>;
  /** The remote schema's name, for the call's span. */
  name: string;
  /** The request's trace: the call gets a span, and the remote gets its `traceparent`. */
  trace?: TraceContext | undefined;
}

/** The response body for the client, and the remote's `Set-Cookie` values. */
export interface UpstreamAnswer {
  body: Uint8Array;
  setCookies: string[];
}

/**
 * Runs one GraphQL request on a remote server (interface 4.3, compat-facts 7.2): the
 * remote's headers and timeout, the response passed on as received when it carries no
 * errors, and `{"data":null,"errors":[...]}` with the remote's own errors otherwise; the
 * remote's `Set-Cookie` headers go back to the client.
 */
export async function callUpstream(client: UpstreamClient, remote: ResolvedRemote, call: UpstreamCall): Promise<UpstreamAnswer> {
  const body = JSON.stringify({ query: call.query, variables: call.variables, ...(call.operationName === null ? {} : { operationName: call.operationName }) });
  const headers = upstreamHeaders(remote, call.session, call.headers);
  const response = await traced(`remote schema ${call.name}`, call.trace, { kind: SpanKind.CLIENT, attributes: { 'service.remote_schema.name': call.name } }, (trace) =>
    client.post(remote.url, body, trace === undefined ? headers : { ...headers, ...traceHeaders(trace) }, remote.timeoutMs),
  );
  const { setCookies } = response;
  if (passesAsIs(response)) return { body: response.body, setCookies };
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
  if (Array.isArray(result.errors) && result.errors.length > 0) return { body: encodeJson({ data: null, errors: result.errors }), setCookies };
  if (response.status < 200 || response.status >= 300 || result.data === undefined) {
    throw errors.remoteSchemaFailed('$', `the remote server at ${remote.url} answered HTTP ${response.status} without data or errors`);
  }
  return { body: response.body, setCookies };
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
