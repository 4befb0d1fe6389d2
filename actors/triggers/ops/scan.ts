import { jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Reads every message of `stream` on `filter`, oldest first, with an ordered consumer.
 * The logs are JetStream streams without secondary indexes, so the read operations
 * (event logs, invocation logs, an event by id) cost one pass over the trigger's (or,
 * for an id, the whole) log; the retention bounds it.
 */
export async function scanStream(nc: NatsConnection, js: JetStreamClient, stream: string, filter: string, visit: (message: JsMsg) => void): Promise<void> {
  const jsm = await managerOf(nc);
  let count = 0;
  try {
    const info = await jsm.streams.info(stream, { subjects_filter: filter });
    count = Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  } catch {
    return; // no stream yet: nothing was ever logged
  }
  if (count === 0) return;
  const consumer = await js.consumers.get(stream, { filter_subjects: filter });
  const messages = await consumer.consume({ max_messages: 1000 });
  try {
    for await (const message of messages) {
      visit(message);
      if (message.info.pending === 0) break;
    }
  } finally {
    await messages.close();
  }
}

/** One manager per connection: making one checks the JetStream API with a round trip. */
const managers = new WeakMap<NatsConnection, Promise<JetStreamManager>>();

function managerOf(nc: NatsConnection): Promise<JetStreamManager> {
  let manager = managers.get(nc);
  if (manager === undefined) {
    manager = jetstreamManager(nc);
    managers.set(nc, manager);
    // A failed check (JetStream away) is not kept: the next scan asks again.
    manager.catch(() => managers.delete(nc));
  }
  return manager;
}
