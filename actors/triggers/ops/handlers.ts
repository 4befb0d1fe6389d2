import type { ActorContext } from '../../../src/actor/actor.js';
import { encodeJson } from '../../../src/bus/wire.js';
import { errors } from '../../../src/errors/errors.js';
import type { EventByIdRequest, EventLogsRequest, InvocationLogsRequest, InvokeRequest, RedeliverRequest } from '../../../src/bus/messages/triggers.js';
import { TRIGGERS_VERBS } from '../../../src/bus/subjects.js';
import { validate } from '../../../src/schemas/validator.js';
import { EventTooLargeError, type EventLog } from '../log/event-log.js';
import { EVENT_HEADER, encodeEvent, eventHeaders, formatCreatedAt, manualEventId } from '../log/event-message.js';
import type { LogReader } from './reads.js';

/** How long redeliver_event listens for the instances that have the event in flight. */
const IN_FLIGHT_WINDOW_MS = 250;

/**
 * What only the triggers actor can do for the /v1/query event operations: it owns the
 * event and invocation logs. The schema actor has already checked the request against
 * the metadata (the trigger exists, manual mode is on).
 */
export function serveTriggerRequests(context: ActorContext, eventLog: EventLog, reader: LogReader): void {
  const { bus } = context;
  const subjects = bus.subjects;

  context.serve(subjects.triggers(TRIGGERS_VERBS.invoke), async (request) => {
    const message = validate<InvokeRequest>('bus/triggers-invoke', request.json());
    const id = manualEventId();
    const stored = encodeEvent({
      id,
      trigger: message.trigger,
      table: message.table,
      op: 'MANUAL',
      oldJson: 'null',
      newJson: JSON.stringify(message.payload ?? null),
      sessionJson: JSON.stringify(message.session_variables),
      createdAt: formatCreatedAt(BigInt(Date.now()) * 1000n),
    });
    try {
      await eventLog.append(subjects.eventsOf(message.trigger), stored.body, id, eventHeaders(id, stored.split));
    } catch (error) {
      if (error instanceof EventTooLargeError) throw errors.invalidParams('$.args.payload', `the event is too large: ${error.message}`);
      throw error;
    }
    return encodeJson({ event_id: id });
  });

  context.serve(subjects.triggers(TRIGGERS_VERBS.redeliver), async (request) => {
    const message = validate<RedeliverRequest>('bus/triggers-redeliver', request.json());
    const found = await reader.findEvent(message.event_id);
    if (found === null) throw errors.notExists('$.args.event_id', 'event not found');
    // compat-facts 4.6: an event whose webhook call is under way on any instance is "locked".
    const answers = await bus.gather<{ in_flight: boolean }>(subjects.triggersInFlight, { event_id: message.event_id }, IN_FLIGHT_WINDOW_MS);
    if (answers.some((answer) => answer.in_flight)) throw errors.eventBusy('$.args.event_id');
    // A fresh copy, so the consumer delivers it anew with its tries back at 0; same event id.
    const copyId = `${message.event_id}.redelivery.${Date.now()}`;
    await eventLog.append(found.message.subject, found.message.data, copyId, eventHeaders(message.event_id, found.message.split, { [EVENT_HEADER.redelivery]: '1' }));
    return encodeJson({ message: 'success' });
  });

  context.serve(subjects.triggers(TRIGGERS_VERBS.eventLogs), async (request) => {
    const message = validate<EventLogsRequest>('bus/triggers-event-logs', request.json());
    return encodeJson(await reader.eventLogs(message.trigger_name, message.status, message.limit, message.offset));
  });

  context.serve(subjects.triggers(TRIGGERS_VERBS.invocationLogs), async (request) => {
    const message = validate<InvocationLogsRequest>('bus/triggers-invocation-logs', request.json());
    return encodeJson(await reader.invocationLogs(message.trigger_name, message.limit, message.offset));
  });

  context.serve(subjects.triggers(TRIGGERS_VERBS.eventById), async (request) => {
    const message = validate<EventByIdRequest>('bus/triggers-event-by-id', request.json());
    const found = await reader.eventById(message.event_id, message.invocation_log_limit, message.invocation_log_offset);
    if (found === null) throw errors.notExists('$.args.event_id', 'event not found');
    return encodeJson(found);
  });
}
