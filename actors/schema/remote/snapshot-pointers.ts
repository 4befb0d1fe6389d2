import type { Catalog, RemoteCatalog, RemoteSnapshot } from '../../../src/pg/catalog.js';
import type { Pool, PoolClient } from '../../../src/pg/pool.js';
import { inTransaction } from '../../../src/pg/transaction.js';

/**
 * Which introspection each remote schema is served from (interface 9.5): a pointer per
 * remote to a snapshot the remote-schema actor stored, or the reason its last
 * introspection failed, kept in `service_catalog.remote_schema_snapshots` beside the
 * metadata so that every instance serves the same remote schema, a restart keeps it, and
 * only add/update/reload move it. Pointers are written inside the metadata operation's
 * transaction and the operation bumps the metadata version, so the `metadata.changed`
 * broadcast (or the staleness check) makes every instance re-read them with the catalog.
 */
const POINTERS_LOCK_KEY = 7_234_007;

export async function ensureSnapshotPointers(pool: Pool): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [POINTERS_LOCK_KEY]);
    await client.query('create schema if not exists service_catalog');
    await client.query(`create table if not exists service_catalog.remote_schema_snapshots (
      name text primary key,
      snapshot text,
      error text,
      fetched_at timestamptz not null default clock_timestamp()
    )`);
    // The cache of earlier versions kept the introspection text itself; its remotes are
    // introspected again at start (probe.ts), as a first start would.
    await client.query('drop table if exists service_catalog.remote_schemas');
  });
}

export async function readSnapshotPointers(db: Pool | PoolClient): Promise<Map<string, RemoteSnapshot>> {
  const result = await db.query<{ name: string; snapshot: string | null; error: string | null; fetched_at: string }>(
    `select name, snapshot, error, (extract(epoch from fetched_at) * 1000)::float8::text as fetched_at from service_catalog.remote_schema_snapshots`,
  );
  return new Map(result.rows.map((row) => [row.name, { snapshot: row.snapshot, error: row.error, fetchedAt: Number(row.fetched_at) }]));
}

export async function writeSnapshotPointer(db: Pool | PoolClient, name: string, outcome: { snapshot: string } | { error: string }): Promise<void> {
  const snapshot = 'snapshot' in outcome ? outcome.snapshot : null;
  const error = 'error' in outcome ? outcome.error : null;
  await db.query(
    `insert into service_catalog.remote_schema_snapshots (name, snapshot, error, fetched_at) values ($1, $2, $3, clock_timestamp())
     on conflict (name) do update set snapshot = excluded.snapshot, error = excluded.error, fetched_at = excluded.fetched_at`,
    [name, snapshot, error],
  );
}

export async function deleteSnapshotPointer(db: Pool | PoolClient, name: string): Promise<void> {
  await db.query('delete from service_catalog.remote_schema_snapshots where name = $1', [name]);
}

/**
 * A remote found down when this instance started (interface 9.4-9.5, "down at start"):
 * it stays inconsistent here until a reload writes a newer pointer than the one it
 * overrides, whatever that pointer holds.
 */
export interface RemoteOutage {
  reason: string;
  /** `fetchedAt` of the pointer it overrides. */
  overrides: number;
}

export interface RemoteServingOptions {
  permissionsEnabled: boolean;
  outages: ReadonlyMap<string, RemoteOutage>;
}

export async function withRemoteCatalog(catalog: Catalog, db: Pool | PoolClient, options: RemoteServingOptions): Promise<Catalog> {
  const snapshots = await readSnapshotPointers(db);
  for (const [name, outage] of options.outages) {
    const pointer = snapshots.get(name);
    if (pointer !== undefined && pointer.fetchedAt === outage.overrides) snapshots.set(name, { snapshot: null, error: outage.reason, fetchedAt: pointer.fetchedAt });
  }
  const remote: RemoteCatalog = { snapshots, permissionsEnabled: options.permissionsEnabled };
  return { ...catalog, remote };
}

/**
 * The catalog with no remote schema pointers, for an operation on metadata without remote
 * schemas: no operation reads a pointer but of a remote schema the metadata has, and one
 * that adds a remote schema writes its pointer and reloads the catalog, which reads them.
 * A round trip less for every operation of a user without remote schemas.
 */
export function withoutRemoteSnapshots(catalog: Catalog, options: RemoteServingOptions): Catalog {
  return { ...catalog, remote: { snapshots: new Map(), permissionsEnabled: options.permissionsEnabled } };
}
