import type { QualifiedName } from '../../metadata/types.js';
import type { Pool, PoolClient } from '../pool.js';
import { relationKey } from '../catalog.js';
import { qualified, quoteIdent } from '../quote.js';
import { METADATA_TABLE, PUBLICATION, slotName } from './names.js';

type Db = Pool | PoolClient;

// The reads run at every metadata change are named statements, planned once per connection:
// planning them cost more than running them (0.2-0.3 ms each on a 5,000-table catalog).

const DUPLICATE_OBJECT = '42710';
const OBJECT_IN_USE = '55006';

/**
 * The PostgreSQL side of capture: one publication and one logical slot per engine
 * database. The publication always holds the metadata table (capture follows trigger
 * changes in WAL order) and exactly the tables that have triggers; those tables get
 * REPLICA IDENTITY FULL so updates and deletes carry the whole old row.
 *
 * Used by the create/delete_event_trigger operations inside the metadata transaction
 * (so a change committed after the operation returns is always captured) and by the
 * triggers actor, which reconciles after replace_metadata and clear_metadata.
 */
export async function ensurePublication(db: Db): Promise<void> {
  const exists = await db.query({ name: 'service_publication_exists', text: 'select 1 from pg_publication where pubname = $1', values: [PUBLICATION] });
  if (exists.rowCount !== 0) return;
  try {
    await db.query(`create publication ${quoteIdent(PUBLICATION)} for table ${qualified(METADATA_TABLE.schema, METADATA_TABLE.name)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== DUPLICATE_OBJECT) throw error;
  }
}

export async function currentSlotName(db: Db): Promise<string> {
  const result = await db.query<{ name: string }>('select current_database() as name');
  return slotName(result.rows[0]!.name);
}

/**
 * Creates the slot if missing. The publication must exist first: pgoutput cannot decode
 * WAL written before its publication existed. Must not run in a transaction that wrote.
 */
export async function ensureSlot(db: Db, slot: string): Promise<void> {
  const exists = await db.query({ name: 'service_slot_exists', text: 'select 1 from pg_replication_slots where slot_name = $1', values: [slot] });
  if (exists.rowCount !== 0) return;
  try {
    await db.query(`select pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
  } catch (error) {
    if ((error as { code?: string }).code !== DUPLICATE_OBJECT) throw error;
  }
}

export async function slotExists(db: Db, slot: string): Promise<boolean> {
  return (await db.query({ name: 'service_slot_exists', text: 'select 1 from pg_replication_slots where slot_name = $1', values: [slot] })).rowCount !== 0;
}

/** Drops the slot; false while a reader still holds it. */
export async function dropSlot(db: Db, slot: string): Promise<boolean> {
  try {
    await db.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1', [slot]);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === OBJECT_IN_USE) return false;
    throw error;
  }
}

/**
 * The publication's tables, none when it does not exist. Each member is looked up by its
 * oid: the `pg_publication_tables` view hashes all of `pg_class` for any membership, 12-23 ms
 * on a 5,000-table catalog for a publication of 60 tables (0.3 ms looked up), and the lease
 * holder reads the membership after every metadata change, holding the metadata writers' lock.
 */
export async function publicationMembers(db: Db): Promise<QualifiedName[]> {
  const result = await db.query<{ schema: string; name: string }>({
    name: 'service_publication_members',
    // LIMIT keeps the lateral lookup from being flattened into that hash join.
    text: `select member.schema, member.name
       from pg_publication p
       cross join lateral pg_get_publication_tables(p.pubname::text) as published
       cross join lateral (
         select n.nspname as schema, c.relname as name
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.oid = published.relid
          limit 1) as member
      where p.pubname = $1`,
    values: [PUBLICATION],
  });
  return result.rows;
}

/**
 * Which of `tables` are in the publication: at most as many rows as asked about, where
 * reading the whole membership (thousands of rows at thousands of tracked tables) cost
 * every operation milliseconds. An ordinary table of a publication that lists its tables
 * (as the engine's does) is a member exactly when it is listed: looked up in
 * `pg_publication_rel`. Anything else (a partition, a publication of all tables or of a
 * schema) asks `pg_get_publication_tables`, which makes the whole membership: 24 ms at
 * 5,000 members, on every table tracked.
 */
export async function publishedAmong(db: Db, tables: readonly QualifiedName[]): Promise<Set<string>> {
  const schemas = await publicationsOfSchemas(db);
  const result = await db.query<{ schema: string; name: string }>({
    name: schemas ? 'service_publication_among' : 'service_publication_among_14',
    // The members' ids come once, as a hashed set, and only if some table needs them:
    // joined through pg_publication_tables, PostgreSQL made the membership again for each
    // of thousands of asked-about tables.
    text: `select n.nspname as schema, c.relname as name
       from unnest($2::text[], $3::text[]) as asked(schema, name)
       join pg_namespace n on n.nspname = asked.schema
       join pg_class c on c.relnamespace = n.oid and c.relname = asked.name
       join pg_publication p on p.pubname = $1
      where ${memberOf(schemas)}`,
    values: [PUBLICATION, tables.map((table) => table.schema), tables.map((table) => table.name)],
  });
  return new Set(result.rows.map(keyOf));
}

/**
 * Whether table `c` is a member of publication `p` (a `$1` that names it), in SQL: an
 * ordinary table of a publication that lists its tables is a member exactly when it is
 * listed in `pg_publication_rel`; anything else asks `pg_get_publication_tables`, which
 * makes the whole membership (24 ms at 5,000 members).
 */
function memberOf(schemas: boolean): string {
  return `case when c.relkind = 'r' and not c.relispartition and not p.puballtables${schemas ? ' and not exists (select 1 from pg_publication_namespace pn where pn.pnpubid = p.oid and pn.pnnspid = c.relnamespace)' : ''}
                 then exists (select 1 from pg_publication_rel pr where pr.prpubid = p.oid and pr.prrelid = c.oid)
                 else c.oid in (select relid from pg_get_publication_tables($1::text)) end`;
}

/** Publications of schemas came with PostgreSQL 15. */
async function publicationsOfSchemas(db: Db): Promise<boolean> {
  return (await serverVersion(db)) >= 150_000;
}

/**
 * The server's version number (150000 and up: publications of schemas, PostgreSQL 15), read
 * once per connection or pool it is asked through rather than once per process: a server
 * upgraded behind the same address is met by new connections.
 */
const versions = new WeakMap<Db, Promise<number>>();

function serverVersion(db: Db): Promise<number> {
  let version = versions.get(db);
  if (version === undefined) {
    version = db.query<{ version: number }>("select current_setting('server_version_num')::int as version").then((result) => result.rows[0]!.version);
    versions.set(db, version);
    version.catch(() => versions.delete(db));
  }
  return version;
}

const same = (a: QualifiedName, b: QualifiedName) => a.schema === b.schema && a.name === b.name;
const keyOf = (table: QualifiedName) => relationKey(table.schema, table.name);

/** Adds `table` to the publication with REPLICA IDENTITY FULL (inside the caller's transaction). */
export async function captureTable(db: Db, table: QualifiedName): Promise<void> {
  // ALTER TABLE locks the table: skipped when there is nothing to change (replace_metadata re-applies every trigger).
  const identity = await db.query<{ full: boolean }>("select relreplident = 'f' as full from pg_class where oid = $1::regclass", [qualified(table.schema, table.name)]);
  if (identity.rows[0]?.full !== true) await db.query(`alter table ${qualified(table.schema, table.name)} replica identity full`);
  if ((await publishedAmong(db, [table])).size > 0) return;
  await db.query(`alter publication ${quoteIdent(PUBLICATION)} add table ${qualified(table.schema, table.name)}`);
}

/** Removes those of `tables` that are in the publication, in one statement (their replica identity is left as it is). */
export async function releaseTables(db: Db, tables: readonly QualifiedName[]): Promise<void> {
  if (tables.length === 0) return;
  const published = await publishedAmong(db, tables);
  const leaving = tables.filter((table) => published.has(keyOf(table)));
  if (leaving.length > 0) await db.query(`alter publication ${quoteIdent(PUBLICATION)} drop table ${leaving.map((table) => qualified(table.schema, table.name)).join(', ')}`);
}

/**
 * Of `tables`, those that can follow the publication without changing their replica
 * identity and are not in it yet: an ordinary, logged table (PostgreSQL refuses unlogged and
 * temporary ones) whose updates and deletes identify their rows (a primary key, or an
 * identity of FULL or an index). Tables that do not exist are left out. One query for all of
 * them, which also tells whether the publication exists: a track_table asks it about one
 * table, and every round trip of the metadata writers' transaction is paid by each.
 */
async function unpublished(db: Db, tables: readonly QualifiedName[]): Promise<{ tables: QualifiedName[]; publicationMissing: boolean }> {
  const schemas = await publicationsOfSchemas(db);
  const result = await db.query<{ schema: string; name: string; publication_missing: boolean }>({
    name: schemas ? 'service_publication_unpublished' : 'service_publication_unpublished_14',
    text: `select n.nspname as schema, c.relname as name, p.oid is null as publication_missing
       from unnest($2::text[], $3::text[]) as asked(schema, name)
       join pg_namespace n on n.nspname = asked.schema
       join pg_class c on c.relnamespace = n.oid and c.relname = asked.name
       left join pg_publication p on p.pubname = $1
      where c.relkind = 'r' and c.relpersistence = 'p'
        and (c.relreplident in ('f', 'i') or (c.relreplident = 'd' and exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary)))
        and (p.oid is null or not (${memberOf(schemas)}))`,
    values: [PUBLICATION, tables.map((table) => table.schema), tables.map((table) => table.name)],
  });
  return { tables: result.rows.map(({ schema, name }) => ({ schema, name })), publicationMissing: result.rows.some((row) => row.publication_missing) };
}

/**
 * Tables per ALTER PUBLICATION statement. Where a `ddl_command_end` event trigger exists
 * (the catalog change log's, src/pg/catalog-change-log.ts), PostgreSQL keeps a copy of the
 * whole statement for each table it adds, so one statement for thousands of tables grows
 * with their square: 0.5 s for 2,000 tables and 11 s for 5,000, against 65 ms for 2,000 in
 * statements of 100.
 */
const TABLES_PER_STATEMENT = 100;

/**
 * Adds tracked tables to the publication without changing their replica identity, so that
 * their changes reach the subscriptions' change feed: only the tables `unpublished` lets
 * through can be published without breaking their writers. A statement per hundred
 * tables; best effort, inside the caller's transaction (a savepoint): when one fails, each
 * of its tables is tried on its own, and a table the engine does not own, say, is left out
 * and its subscriptions are polled. A missing publication is created first, also at best.
 * Reconciling 5,000 tracked tables into an empty publication took 1.6-2.1 s with statements
 * per table, 0.35-0.57 s with few (embedded PostgreSQL 17). Tracking one table that
 * can follow costs two round trips: the question and the statement with its savepoint.
 */
export async function followTables(db: PoolClient, tables: readonly QualifiedName[]): Promise<void> {
  if (tables.length === 0) return;
  const eligible = await unpublished(db, tables);
  if (eligible.tables.length === 0) return;
  if (eligible.publicationMissing && !(await createdAtBest(db))) return;
  for (let from = 0; from < eligible.tables.length; from += TABLES_PER_STATEMENT) {
    const some = eligible.tables.slice(from, from + TABLES_PER_STATEMENT);
    if ((await addToPublication(db, some)) || some.length === 1) continue;
    for (const table of some) await addToPublication(db, [table]);
  }
}

/**
 * Back to the savepoint, and the savepoint let go of: a savepoint rolled back to stays open,
 * and each one left open is a subtransaction the whole transaction carries (past 64, every
 * other session's snapshots overflow until it commits).
 */
const LEAVE_FAILED_SAVEPOINT = 'rollback to savepoint follow_tables; release savepoint follow_tables';

/** The publication, created under a savepoint; false when it cannot be (no right to). */
async function createdAtBest(db: PoolClient): Promise<boolean> {
  await db.query('savepoint follow_tables');
  try {
    await ensurePublication(db);
    await db.query('release savepoint follow_tables');
    return true;
  } catch {
    await db.query(LEAVE_FAILED_SAVEPOINT);
    return false;
  }
}

/** The savepoint, the statement and the release in one round trip; on failure, back to the savepoint. */
async function addToPublication(db: PoolClient, tables: readonly QualifiedName[]): Promise<boolean> {
  try {
    await db.query(`savepoint follow_tables; alter publication ${quoteIdent(PUBLICATION)} add table ${tables.map((table) => qualified(table.schema, table.name)).join(', ')}; release savepoint follow_tables`);
    return true;
  } catch {
    await db.query(LEAVE_FAILED_SAVEPOINT);
    return false;
  }
}

/**
 * Brings the publication to the metadata table, `triggerTables` (with REPLICA IDENTITY
 * FULL) and whichever of `trackedTables` can follow (followTables); tables that no longer
 * exist are skipped, and every other table leaves it. The membership is read once and
 * only the differences cost statements: this runs at every metadata change while the slot
 * is read, holding the metadata writers' lock, and a statement per tracked table (each
 * reading the whole membership) took minutes at thousands of tables.
 */
export async function reconcilePublication(db: PoolClient, triggerTables: readonly QualifiedName[], trackedTables: readonly QualifiedName[]): Promise<void> {
  await ensurePublication(db);
  const published = new Map((await publicationMembers(db)).map((table) => [keyOf(table), table]));
  const triggered = new Set(triggerTables.map(keyOf));
  const tracked = new Set(trackedTables.map(keyOf));
  for (const table of triggerTables) {
    if (published.has(keyOf(table))) continue;
    const exists = await db.query('select to_regclass($1) is not null as ok', [qualified(table.schema, table.name)]);
    if (exists.rows[0]?.ok === true) await captureTable(db, table);
  }
  await followTables(db, trackedTables.filter((table) => !triggered.has(keyOf(table)) && !published.has(keyOf(table))));
  await releaseTables(db, [...published].filter(([key, entry]) => !same(entry, METADATA_TABLE) && !triggered.has(key) && !tracked.has(key)).map(([, entry]) => entry));
}
