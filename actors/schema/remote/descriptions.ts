import type { ActorRequest } from '../../../src/bus/actor-request.js';
import type { DescribeReply, DescribeRequest, RemoteDescription } from '../../../src/bus/messages/remote-schema.js';
import { REMOTE_VERBS } from '../../../src/bus/subjects.js';
import { LruCache } from '../../../src/cache/lru.js';
import type { Metadata } from '../../../src/metadata/types.js';
import type { Catalog } from '../../../src/pg/catalog.js';
import { remoteSourceOf } from '../models/remote-access.js';

/** The remote-schema actor's description of each remote schema of a metadata object, by name. */
export type RemoteFacts = ReadonlyMap<string, RemoteDescription>;

export const NO_REMOTE_FACTS: RemoteFacts = new Map();

/** Descriptions kept by content (a remote's definition, snapshot and permissions). */
const KEPT = 256;

/**
 * Asks the remote-schema actor to describe the remote schemas a consistency check meets,
 * keeping each answer by the remote's content, so that a metadata change that leaves a
 * remote as it was asks nothing. An actor that cannot answer leaves the remotes it was
 * asked about inconsistent for this check only (nothing is kept of a failed answer).
 */
export class RemoteDescriber {
  readonly #kept = new LruCache<RemoteDescription>(KEPT);

  async describe(metadata: Metadata, catalog: Catalog, ask: ActorRequest): Promise<RemoteFacts> {
    const facts = new Map<string, RemoteDescription>();
    const asked: DescribeRequest['remotes'] = [];
    const keys = new Map<string, string>();
    for (const entry of metadata.remote_schemas ?? []) {
      const source = remoteSourceOf(entry, catalog);
      if (!('snapshot' in source)) {
        facts.set(entry.name, { ok: false, reason: source.reason });
        continue;
      }
      const permissions = catalog.remote?.permissionsEnabled === true ? (entry.permissions ?? []).map((permission) => ({ role: permission.role, schema: permission.definition.schema })) : [];
      const remote = { ...source, permissions };
      const key = JSON.stringify(remote);
      const kept = this.#kept.get(key);
      if (kept !== undefined) facts.set(entry.name, kept);
      else {
        asked.push(remote);
        keys.set(remote.name, key);
      }
    }
    if (asked.length === 0) return facts;
    try {
      const reply = await ask<DescribeReply>((subjects) => subjects.remote(REMOTE_VERBS.describe), { remotes: asked } satisfies DescribeRequest);
      for (const remote of asked) {
        const description = reply.remotes[remote.name];
        if (description === undefined) continue;
        this.#kept.set(keys.get(remote.name)!, description);
        facts.set(remote.name, description);
      }
    } catch (error) {
      const reason = `the remote-schema actor could not describe it: ${(error as Error).message}`;
      for (const remote of asked) facts.set(remote.name, { ok: false, reason });
    }
    return facts;
  }
}
