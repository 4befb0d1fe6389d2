import { randomUUID } from 'node:crypto';
import { concatChunks, headersWith } from '../../../src/bus/wire.js';
import type { EventLog } from '../log/event-log.js';
import { formatCreatedAt } from '../log/event-message.js';
import type { Trigger } from '../trigger-set.js';
import type { AttemptResult } from './webhook.js';

export type Outcome = 'delivered' | 'retry' | 'error';

/**
 * One record of the invocation log per webhook attempt, shaped like a row of Hasura's
 * `event_invocation_logs` (compat-facts 4.3) plus what event status needs: the attempt's
 * outcome and, for a retry, when it is due.
 */
export interface InvocationRecord {
  id: string;
  trigger_name: string;
  event_id: string;
  status: number | null;
  request: { payload: unknown; headers: unknown[]; version: '2' };
  response: Record<string, unknown>;
  created_at: string;
  outcome: Outcome;
  next_retry_at: string | null;
}

const encoder = new TextEncoder();
/** Room kept for the record's other fields when the payload or response must be cut. */
const TRUNCATED_TEXT_BYTES = 16 * 1024;

export async function recordInvocation(
  eventLog: EventLog,
  subject: string,
  args: { trigger: Trigger; eventId: string; body: Uint8Array; result: AttemptResult; outcome: Outcome; retryInMs: number | null },
): Promise<void> {
  const nowMicros = BigInt(Date.now()) * 1000n;
  const id = randomUUID();
  const fields = {
    id: JSON.stringify(id),
    trigger_name: JSON.stringify(args.trigger.name),
    event_id: JSON.stringify(args.eventId),
    status: JSON.stringify(args.result.status),
    headers: JSON.stringify(args.trigger.headers.map((header) => header.logged)),
    created_at: JSON.stringify(formatCreatedAt(nowMicros)),
    outcome: JSON.stringify(args.outcome),
    next_retry_at: JSON.stringify(args.retryInMs === null ? null : formatCreatedAt(nowMicros + BigInt(args.retryInMs) * 1000n)),
  };
  // Assembled as bytes around the webhook body, which is already JSON: never decoded and re-encoded.
  const build = (payload: Uint8Array, response: Record<string, unknown>) =>
    concatChunks([
      encoder.encode(
        `{"id":${fields.id},"trigger_name":${fields.trigger_name},"event_id":${fields.event_id},"status":${fields.status},"request":{"payload":`,
      ),
      payload,
      encoder.encode(
        `,"headers":${fields.headers},"version":"2"},"response":${JSON.stringify(response)},` +
          `"created_at":${fields.created_at},"outcome":${fields.outcome},"next_retry_at":${fields.next_retry_at}}`,
      ),
    ]);
  let record = build(args.body, args.result.response);
  if (record.length > eventLog.maxBody) {
    // The record must fit one NATS message: cut the response text, then leave the payload
    // out (the event itself stays in the event log), saying so in the record.
    record = build(encoder.encode(JSON.stringify({ truncated: true, bytes: args.body.length })), truncateResponse(args.result.response));
  }
  // No Nats-Msg-Id: JetStream would track one per attempt for its whole duplicate window,
  // costing the server at every delivery; a copy stored by a retried publish has the same
  // record id and the log reads drop it.
  await eventLog.append(subject, record, null, headersWith({ 'Svc-Event-Id': args.eventId }));
}

function truncateResponse(response: Record<string, unknown>): Record<string, unknown> {
  const data = { ...(response.data as Record<string, unknown>) };
  for (const key of ['body', 'message']) {
    if (typeof data[key] === 'string' && (data[key] as string).length > TRUNCATED_TEXT_BYTES) {
      data[key] = `${(data[key] as string).slice(0, TRUNCATED_TEXT_BYTES)}... (truncated)`;
    }
  }
  return { ...response, data };
}
