import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * Deletes the JetStream streams (event and invocation logs, KV buckets) of the engines a
 * test run or a benchmark started, chosen by a test on each stream's name: the machine's
 * NATS outlives the run, and kept a week (the streams' max age) a run's streams were tens
 * of them, and a triggers benchmark's about 60 MB.
 */
export async function deleteStreams(natsUrl: string, chosen: (name: string) => boolean): Promise<number> {
  // A NATS that went with the engine which started it (src/bus/local-nats.ts) took its streams along.
  const nc = await connect({ servers: natsUrl, maxReconnectAttempts: 0 }).catch(() => null);
  if (nc === null) return 0;
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) if (chosen(name)) names.push(name);
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
    return names.length;
  } finally {
    await nc.close();
  }
}

/** Whether a stream belongs to the engines on subject prefix `prefix` (src/bus/subjects.ts names them). */
export function streamOfPrefix(prefix: string): (name: string) => boolean {
  const upper = `${prefix.toUpperCase()}_`;
  const kv = `KV_${prefix}_`;
  return (name) => name.startsWith(upper) || name.startsWith(kv);
}
