import type { HandlerReply } from '../bus/bus.js';
import type { EngineMetrics } from './engine-metrics.js';
import { operationTypeOf } from './operation-type.js';

const ERRORS_FIRST = Buffer.from('{"errors"');

/**
 * Whether a reply carries errors: every refusal and failure of the executor is answered
 * as `{"errors":...}` (graphqlErrorBody), while data is `{"data":...}`, so the first bytes
 * tell without reading the rest. A batch counts as failed when its first response does.
 */
function failed(reply: HandlerReply | null): boolean {
  if (reply === null) return true;
  const body = reply instanceof Uint8Array ? reply : 'body' in reply ? reply.body : null;
  if (body === null) return false;
  const start = body[0] === 0x5b ? 1 : 0;
  if (body.length < start + ERRORS_FIRST.length) return false;
  for (let i = 0; i < ERRORS_FIRST.length; i++) if (body[start + i] !== ERRORS_FIRST[i]) return false;
  return true;
}

/** Counts one `<p>.graphql` request and its execution time; a null reply is a request that threw. */
export function recordGraphql(metrics: EngineMetrics, reply: HandlerReply | null, seconds: number): void {
  const meta = reply === null || reply instanceof Uint8Array || !('meta' in reply) ? undefined : reply.meta;
  metrics.recordGraphql(operationTypeOf(meta), failed(reply), seconds);
}
