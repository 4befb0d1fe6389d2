import type { Catalog, RemoteCatalog, RemoteSnapshot } from '../../../src/pg/catalog.js';
import type { Pool, PoolClient } from '../../../src/pg/pool.js';
import { inTransaction } from '../../../src/pg/transaction.js';

/**
 * The remote schema cache (interface 9.5): each remote's last introspection, kept in
 * `service_catalog.remote_schemas` beside the metadata so that every instance serves the
 * same remote schema, a restart keeps it, and only add/update/reload replace it. Rows are
 * written inside the metadata operation's transaction and the operation bumps the
 * metadata version, so the `metadata.changed` broadcast (or the staleness check) makes
 * every instance re-read them with the catalog.
 */
const CACHE_LOCK_KEY = 7_234_007;

export async function ensureRemoteCache(pool: Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [CACHE_LOCK_KEY]);
    await client.query('create schema if not exists service_catalog');
    await client.query(`create table if not exists service_catalog.remote_schemas (
      name text primary key,
      introspection text,
      error text,
      fetched_at timestamptz not null default clock_timestamp()
    )`);
  });
}

export async function readRemoteSnapshots(db: Pool | PoolClient): Promise<Map<string, RemoteSnapshot>> {
  const result = await db.query<{ name: string; introspection: string | null; error: string | null; fetched_at: string }>(
    `select name, introspection, error, (extract(epoch from fetched_at) * 1000)::float8::text as fetched_at from service_catalog.remote_schemas`,
  );
  return new Map(result.rows.map((row) => [row.name, { introspection: row.introspection, error: row.error, fetchedAt: Number(row.fetched_at) }]));
}

export async function writeRemoteSnapshot(db: Pool | PoolClient, name: string, outcome: { introspection: string } | { error: string }): Promise<void> {
  const introspection = 'introspection' in outcome ? outcome.introspection : null;
  const error = 'error' in outcome ? outcome.error : null;
  await db.query(
    `insert into service_catalog.remote_schemas (name, introspection, error, fetched_at) values ($1, $2, $3, clock_timestamp())
     on conflict (name) do update set introspection = excluded.introspection, error = excluded.error, fetched_at = excluded.fetched_at`,
    [name, introspection, error],
  );
}

export async function deleteRemoteSnapshot(db: Pool | PoolClient, name: string): Promise<void> {
  await db.query('delete from service_catalog.remote_schemas where name = $1', [name]);
}

/**
 * A remote found down when this instance started (interface 9.4-9.5, "down at start"):
 * it stays inconsistent here until a reload writes a newer snapshot than the one it
 * overrides, whatever the cache held.
 */
export interface RemoteOutage {
  reason: string;
  /** `fetchedAt` of the snapshot it overrides. */
  overrides: number;
}

export interface RemoteCacheOptions {
  permissionsEnabled: boolean;
  outages: ReadonlyMap<string, RemoteOutage>;
}

export async function withRemoteCatalog(catalog: Catalog, db: Pool | PoolClient, options: RemoteCacheOptions): Promise<Catalog> {
  const snapshots = await readRemoteSnapshots(db);
  for (const [name, outage] of options.outages) {
    const snapshot = snapshots.get(name);
    if (snapshot !== undefined && snapshot.fetchedAt === outage.overrides) snapshots.set(name, { introspection: null, error: outage.reason, fetchedAt: snapshot.fetchedAt });
  }
  const remote: RemoteCatalog = { snapshots, permissionsEnabled: options.permissionsEnabled };
  return { ...catalog, remote };
}
