import type { ActorRequest } from '../../../src/bus/actor-request.js';
import type { IntrospectReply, RemoteDefinitionRequest } from '../../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../../src/bus/subjects.js';
import type { Logger } from '../../../src/log/logger.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Pool } from '../../../src/pg/pool.js';
import { readSnapshotPointers, writeSnapshotPointer, type RemoteOutage } from './snapshot-pointers.js';

/** Asks the remote-schema actor to introspect a remote; the answer is the id of the snapshot it stored. */
export async function introspectRemote(ask: ActorRequest, entry: Pick<RemoteSchemaEntry, 'name' | 'definition'>): Promise<string> {
  const reply = await ask<IntrospectReply>((subjects) => subjects.remote(REMOTE_VERBS.introspect), { name: entry.name, definition: entry.definition } satisfies RemoteDefinitionRequest);
  return reply.snapshot;
}

export function failureReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What a starting instance does about remote schemas (Hasura introspects them when it
 * builds its schema cache at start): a remote without a pointer, or whose last attempt
 * failed, is introspected and pointed at; a remote that is down now while a good snapshot
 * is pointed at is an outage on this instance, reported inconsistent until a reload. A
 * good pointer is never moved here: only reloads refresh it (interface 9.5), so instances
 * started at different times serve the same schema.
 */
export async function probeRemoteSchemas(pool: Pool, metadata: Metadata, ask: ActorRequest, log: Logger): Promise<Map<string, RemoteOutage>> {
  const pointers = await readSnapshotPointers(pool);
  const outages = new Map<string, RemoteOutage>();
  await Promise.all(
    (metadata.remote_schemas ?? []).map(async (entry) => {
      const pointer = pointers.get(entry.name);
      try {
        const snapshot = await introspectRemote(ask, entry);
        if (pointer === undefined || pointer.snapshot === null) await writeSnapshotPointer(pool, entry.name, { snapshot });
      } catch (error) {
        const reason = failureReason(error);
        log.warn({ remoteSchema: entry.name, reason }, 'remote schema unreachable at start');
        if (pointer === undefined) await writeSnapshotPointer(pool, entry.name, { error: reason });
        else if (pointer.snapshot !== null) outages.set(entry.name, { reason, overrides: pointer.fetchedAt });
      }
    }),
  );
  return outages;
}
