import { REPLY_META } from '../bus/wire.js';

/** Hasura's `operation_type` label values; `unknown` when the request ran no operation (refused before, or failed). */
export type OperationType = 'query' | 'mutation' | 'subscription' | 'unknown';

const KNOWN = new Set<string>(['query', 'mutation', 'subscription']);

/**
 * The operation type the executor recorded in the reply's meta (a batch is labelled by its
 * first request): the metrics read what the engine parsed, never the body again.
 */
export function operationTypeOf(meta: Record<string, string> | undefined): OperationType {
  const first = meta?.[REPLY_META.operationType]?.split(',')[0] ?? '';
  return KNOWN.has(first) ? (first as OperationType) : 'unknown';
}
