import type { QualifiedName } from '../../metadata/types.js';

/**
 * The messages of `<p>.triggers.<verb>` (TRIGGERS_VERBS; schemas/bus/triggers-*.json),
 * shared by the schema actor's event operations, which ask, and the triggers actor, which
 * owns the event and invocation logs.
 */
export interface InvokeRequest {
  trigger: string;
  table: QualifiedName;
  payload: unknown;
  session_variables: Record<string, string> | null;
}

export interface RedeliverRequest {
  event_id: string;
}

export interface EventLogsRequest {
  trigger_name: string;
  status: 'pending' | 'processed' | 'all';
  limit: number;
  offset: number;
}

export interface InvocationLogsRequest {
  trigger_name: string;
  limit: number;
  offset: number;
}

export interface EventByIdRequest {
  event_id: string;
  invocation_log_limit: number;
  invocation_log_offset: number;
}

export interface InFlightRequest {
  event_id: string;
}
