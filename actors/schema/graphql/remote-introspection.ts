import type { ActorRequest } from '../../../src/bus/actor-request.js';
import type { Logger } from '../../../src/log/logger.js';
import type { Metadata, RemoteSchemaEntry } from '../../../src/metadata/types.js';
import type { Pool } from '../../../src/pg/pool.js';
import { readRemoteSnapshots, writeRemoteSnapshot, type RemoteOutage } from './remote-cache.js';

/** Asks the remote-schema actor for a remote's introspection; the text is what the remote answered. */
export async function introspectRemote(ask: ActorRequest, entry: Pick<RemoteSchemaEntry, 'name' | 'definition'>): Promise<string> {
  const response = await ask<{ introspection: string }>((subjects) => subjects.remote('introspect'), { name: entry.name, definition: entry.definition });
  return response.introspection;
}

export function failureReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What a starting instance does about remote schemas (Hasura introspects them when it
 * builds its schema cache at start): a remote without a cached snapshot, or whose cached
 * attempt failed, is introspected and cached; a remote that is down now while a good
 * snapshot is cached is an outage on this instance, reported inconsistent until a
 * reload. A good cached snapshot is never replaced here: only reloads refresh it
 * (interface 9.5), so instances started at different times serve the same schema.
 */
export async function probeRemoteSchemas(pool: Pool, metadata: Metadata, ask: ActorRequest, log: Logger): Promise<Map<string, RemoteOutage>> {
  const cached = await readRemoteSnapshots(pool);
  const outages = new Map<string, RemoteOutage>();
  await Promise.all(
    (metadata.remote_schemas ?? []).map(async (entry) => {
      const snapshot = cached.get(entry.name);
      try {
        const introspection = await introspectRemote(ask, entry);
        if (snapshot === undefined || snapshot.introspection === null) await writeRemoteSnapshot(pool, entry.name, { introspection });
      } catch (error) {
        const reason = failureReason(error);
        log.warn({ remoteSchema: entry.name, reason }, 'remote schema unreachable at start');
        if (snapshot === undefined) await writeRemoteSnapshot(pool, entry.name, { error: reason });
        else if (snapshot.introspection !== null) outages.set(entry.name, { reason, overrides: snapshot.fetchedAt });
      }
    }),
  );
  return outages;
}
