import type { Pool, PoolClient } from './pool.js';
import { prepareBySqlOnce } from './prepared-statements.js';
import { inTransaction } from './transaction.js';

/**
 * The catalog change log: an event trigger on `ddl_command_end` that notes the id of every
 * transaction that ran DDL, so that whether the catalog changed is read from a small table
 * instead of a scan of the system catalogs (25-35 ms at 5,000 tables, on every metadata
 * operation). Only a superuser may create an event trigger: elsewhere the engine scans
 * (catalog-cache.ts), as it does when the trigger or the log is not as installed.
 *
 * The log lives in a schema of its own, which the installing superuser owns: its function
 * runs as that superuser (so that any role's DDL can note itself), and the owner of a schema
 * may drop and replace what is in it, so a schema another role owns (service_catalog is the
 * engine's role's) would let that role run code as the superuser.
 */
export const CHANGE_LOG_TRIGGER = 'service_catalog_ddl';
export const CHANGE_LOG_SCHEMA = 'service_catalog_changes';

/** Serialises the installation across instances starting together (an arbitrary constant). */
const INSTALL_LOCK_KEY = 7_234_003;

const LOCK_NOT_AVAILABLE = '55P03';
const UNDEFINED_TABLE = '42P01';
const INSUFFICIENT_PRIVILEGE = '42501';
/** A prepared statement that the server does not have (a pooler ran the batch on another of its connections). */
export const UNDEFINED_PREPARED_STATEMENT = '26000';

/** Past this many rows the log is emptied after the operation that read it (pruneChangeLog). */
const PRUNE_AT = 1_000;

/**
 * Publications are no part of what the introspection reads, and the engine changes them
 * itself on every table tracked; a refreshed materialized view keeps its shape. The
 * failures that only mean the log cannot note a change (its table dropped, the function
 * altered to run as the caller, temporary tables made in a read-only transaction) must not
 * refuse the user's DDL: they warn, and the read finds the log broken and scans. Any other
 * failure fails the DDL, rather than let a change go unnoted.
 */
const FUNCTION_BODY = `
begin
  if tg_tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'DROP PUBLICATION', 'REFRESH MATERIALIZED VIEW') then
    return;
  end if;
  insert into ${CHANGE_LOG_SCHEMA}.transactions (xid) values (pg_catalog.pg_current_xact_id()) on conflict do nothing;
exception when undefined_table or insufficient_privilege or read_only_sql_transaction then
  raise warning '${CHANGE_LOG_SCHEMA}.note could not note a catalog change: %', sqlerrm;
end
`;

const SEARCH_PATH = 'search_path=pg_catalog, pg_temp';

/**
 * The trigger, its function, the log's table and its sequence of prunes, when they are as
 * this engine installs them: enabled always (also under session_replication_role =
 * replica, which some migration and restore tools set), this function body run as its
 * owner with this search path, everything owned by the function's owner, and the table and
 * sequence readable and prunable by the reading role (a superuser may have installed it for
 * an engine that now runs as another role; has_table_privilege with a list asks for any one
 * of them). Their identity is part of the fingerprint: a trigger dropped and made again, or
 * disabled and enabled again, missed the DDL in between, and a table truncated (a new file)
 * lost rows without a prune.
 */
const IDENTITY_SQL = `
select concat_ws('.', t.oid, t.xmin, p.xmin, c.oid, pg_catalog.pg_relation_filenode(c.oid), s.oid) as identity
  from pg_catalog.pg_event_trigger t
  join pg_catalog.pg_proc p on p.oid = t.evtfoid
  join pg_catalog.pg_namespace n on n.oid = p.pronamespace and n.nspname = '${CHANGE_LOG_SCHEMA}' and n.nspowner = p.proowner
  join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = 'transactions' and c.relkind = 'r' and c.relowner = p.proowner
  join pg_catalog.pg_class s on s.relnamespace = n.oid and s.relname = 'prunes' and s.relkind = 'S' and s.relowner = p.proowner
 where t.evtname = '${CHANGE_LOG_TRIGGER}' and t.evtevent = 'ddl_command_end' and t.evtenabled = 'A'
   and p.prosrc = $1 and p.prosecdef and p.proconfig = array['${SEARCH_PATH}']
   and pg_catalog.has_table_privilege(c.oid, 'SELECT') and pg_catalog.has_table_privilege(c.oid, 'DELETE')
   and pg_catalog.has_sequence_privilege(s.oid, 'SELECT') and pg_catalog.has_sequence_privilege(s.oid, 'USAGE')`;

/**
 * How many times the log was emptied, and the log's rows (count and a sum of hashed ids), as
 * one snapshot sees them, then `/` and the count of rows. The number of prunes makes each
 * emptied log read differently from the last one: without it, an instance that last read an
 * empty log would read the same again after other instances noted a thousand changes and
 * emptied it. The sequence is read as it is now, whatever the snapshot: a prune not yet
 * committed reads as changed, which only introspects once more.
 */
const LOG_SQL = `select (select last_value || '.' || is_called from ${CHANGE_LOG_SCHEMA}.prunes) || ':' || count(*) || ':' ||
       coalesce(sum(pg_catalog.hashint8extended(xid::text::bigint, 0)), 0) || '/' || count(*) as log
  from ${CHANGE_LOG_SCHEMA}.transactions`;

/**
 * The trigger's identity and the log's read in one round trip, which every metadata
 * operation pays. A statement naming the log's table fails the caller's transaction when
 * the table is gone, so the read of it runs only where the identity found everything as
 * installed: `query_to_xml` runs it from within this statement (a new snapshot of the same
 * transaction), and only for the row the identity returned. Its result is
 * `<row ...><log>…</log></row>`, whose text is digits, dots, colons, a slash and a boolean.
 */
const READ_SQL = `
select intact.identity, pg_catalog.query_to_xml($log$${LOG_SQL}$log$, false, true, '')::text as log_xml
  from (${IDENTITY_SQL}) intact`;

/**
 * The same read naming the log's table itself, for the writer's batch: `query_to_xml` parses
 * and plans its query on every call, 0.23 ms of PostgreSQL's time on each metadata operation
 * (0.28 against 0.04 ms beyond a bare round trip, 500 tables, 2 slow cores), where this is
 * planned once per connection. It fails where the log's table or sequence is gone or the
 * role may not read them, failing the batch's transaction: the writer then begins again
 * with READ_SQL (catalog-cache.ts).
 */
const PLAIN_READ_SQL = `
select intact.identity, (${LOG_SQL}) as log
  from (${IDENTITY_SQL}) intact`;

/** Whether this server runs `query_to_xml`, which the read needs (a build without XML support may refuse it). */
async function readsThroughXml(pool: Pool): Promise<boolean> {
  return pool.query(`select pg_catalog.query_to_xml('select 1 as one', false, true, '')::text`).then(
    () => true,
    () => false,
  );
}

export interface ChangeLogRead {
  fingerprint: string;
  /** Whether the log is due to be emptied (pruneChangeLog). */
  pruneDue: boolean;
}

/**
 * Installs the log's schema, table, sequence, function and trigger, or leaves them as they
 * are when intact; returns whether the log is in place and can be read (false: the role may
 * not create event triggers, another role owns the log's schema, or the server cannot run
 * `query_to_xml`).
 */
export async function installCatalogChangeLog(pool: Pool): Promise<boolean> {
  if (!(await readsThroughXml(pool))) return false;
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock($1)', [INSTALL_LOCK_KEY]);
    if ((await changeLogIdentity(client)) !== null) return true;
    await client.query('savepoint change_log');
    try {
      await client.query(`create schema if not exists ${CHANGE_LOG_SCHEMA}`);
      const owner = await client.query<{ ours: boolean }>(`select nspowner = (select oid from pg_catalog.pg_roles where rolname = current_user) as ours from pg_catalog.pg_namespace where nspname = '${CHANGE_LOG_SCHEMA}'`);
      if (owner.rows[0]?.ours !== true) {
        await client.query('rollback to savepoint change_log');
        return false;
      }
      await client.query(`create table if not exists ${CHANGE_LOG_SCHEMA}.transactions (xid xid8 primary key)`);
      await client.query(`create sequence if not exists ${CHANGE_LOG_SCHEMA}.prunes`);
      await client.query(`create or replace function ${CHANGE_LOG_SCHEMA}.note() returns event_trigger
        language plpgsql security definer set ${SEARCH_PATH.replace('=', ' = ')} as $body$${FUNCTION_BODY}$body$`);
      await client.query(`drop event trigger if exists ${CHANGE_LOG_TRIGGER}`);
      await client.query(`create event trigger ${CHANGE_LOG_TRIGGER} on ddl_command_end execute function ${CHANGE_LOG_SCHEMA}.note()`);
      await client.query(`alter event trigger ${CHANGE_LOG_TRIGGER} enable always`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42501') throw error;
      await client.query('rollback to savepoint change_log');
      return false;
    }
    return (await changeLogIdentity(client)) !== null;
  });
}

/**
 * The trigger's and the log's identity, or null when they are not as this engine installs
 * them. Both reads are named statements, planned once per connection: planning their joins
 * of the system catalogs cost 0.9 ms each on every metadata operation, their execution 0.06.
 */
async function changeLogIdentity(db: Pool | PoolClient): Promise<string | null> {
  const result = await db.query<{ identity: string }>({ name: 'service_change_log_identity', text: IDENTITY_SQL, values: [FUNCTION_BODY] });
  return result.rows[0]?.identity ?? null;
}

/** The log's fingerprint, or null when it is not intact and only a scan will tell. */
export async function readChangeLog(db: Pool | PoolClient): Promise<ChangeLogRead | null> {
  const result = await db.query<ReadRow>({ name: 'service_change_log_read', text: READ_SQL, values: [FUNCTION_BODY] });
  return changeLogReadOf(result.rows);
}

/**
 * How the batch reads the log: `plain` names its table (PLAIN_READ_SQL), `tolerant` reads it
 * through `query_to_xml` (READ_SQL), which a missing table or privilege cannot fail.
 */
export type BatchedRead = 'plain' | 'tolerant';

/** Each read as prepared by SQL for batches (batchedChangeLogRead). */
const BATCHED_READS: Readonly<Record<BatchedRead, { name: string; text: string }>> = {
  plain: { name: 'service_change_log_read_plain', text: PLAIN_READ_SQL },
  tolerant: { name: 'service_change_log_read_batched', text: READ_SQL },
};

/**
 * The statement that reads the log as one of a batch of statements sent in one round trip
 * on `client` (the metadata writer's first: BEGIN, the writers' lock, the version), whose
 * rows changeLogReadOf reads. A batch is planned anew on every run, and the read's joins of
 * the system catalogs cost more to plan than to run, so the read is prepared on the
 * connection once, by SQL, and the batch only executes it. Preparing the plain read fails
 * where its table or sequence is gone (UNDEFINED_TABLE), outside any transaction.
 */
export async function batchedChangeLogRead(client: PoolClient, read: BatchedRead): Promise<string> {
  const { name, text } = BATCHED_READS[read];
  await prepareBySqlOnce(client, name, text.replace('$1', `$body$${FUNCTION_BODY}$body$`));
  return `execute ${name}`;
}

/** Whether a batch with the plain read failed on what the tolerant read survives: the log's table or sequence gone, or not the role's to read. */
export function plainReadRefused(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === UNDEFINED_TABLE || code === INSUFFICIENT_PRIVILEGE;
}

/** A row of either read: the log's text as the plain read gives it, or as `query_to_xml` wrote it. */
export interface ReadRow {
  identity: string;
  log?: string;
  log_xml?: string;
}

/** The log's fingerprint from the rows of its read, or null when they tell it is not intact. */
export function changeLogReadOf(rows: readonly ReadRow[]): ChangeLogRead | null {
  const row = rows[0];
  if (row === undefined) return null;
  const log = row.log ?? (row.log_xml === undefined ? undefined : /<log>([^<]*)<\/log>/.exec(row.log_xml)?.[1]);
  if (log === undefined) return null;
  const [read, count] = log.split('/');
  return { fingerprint: `${row.identity}:${read}`, pruneDue: Number(count) >= PRUNE_AT };
}

/**
 * Empties the log in a transaction of its own (never the caller's, whose rows it would hold
 * locked) and counts the prune; returns the fingerprints before and after, both of the
 * transaction's snapshot, or null when nothing was pruned. One prune at a time, locked
 * before the snapshot is taken: the count of prunes is read as it is now, so a concurrent
 * prune's count, with rows it removed that this snapshot never saw (a change noted
 * meanwhile), would make this one's "after" match a log that holds that change. The lock
 * lets the trigger's inserts through. Best effort: a prune that finds another one running
 * gives up.
 */
export async function pruneChangeLog(pool: Pool): Promise<{ before: string; after: string } | null> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('begin isolation level repeatable read');
    await client.query(`lock table ${CHANGE_LOG_SCHEMA}.transactions in share update exclusive mode nowait`);
    const before = await readChangeLog(client);
    const pruned = before === null ? 0 : (await client.query(`delete from ${CHANGE_LOG_SCHEMA}.transactions`)).rowCount;
    if (before === null || pruned === 0) {
      await client.query('rollback');
      return null;
    }
    await client.query(`select pg_catalog.nextval('${CHANGE_LOG_SCHEMA}.prunes')`);
    const after = await readChangeLog(client);
    await client.query('commit');
    return after === null ? null : { before: before.fingerprint, after: after.fingerprint };
  } catch (error) {
    broken = await client.query('rollback').then(() => false, () => true);
    // Another prune holds the log, or the log went away since it was found due.
    if ([LOCK_NOT_AVAILABLE, UNDEFINED_TABLE].includes((error as { code?: string }).code ?? '')) return null;
    throw error;
  } finally {
    client.release(broken);
  }
}
