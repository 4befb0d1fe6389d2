import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectCatalog, relationKey } from '../../src/pg/catalog.js';
import { CatalogCache } from '../../src/pg/catalog-cache.js';
import { batchedChangeLogRead, changeLogReadOf, CHANGE_LOG_SCHEMA, CHANGE_LOG_TRIGGER, installCatalogChangeLog, pruneChangeLog, readChangeLog, type ReadRow } from '../../src/pg/catalog-change-log.js';
import { createPool, type PoolClient } from '../../src/pg/pool.js';
import { forgetPreparedStatements } from '../../src/pg/prepared-statements.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table cl (id integer primary key, name text)');
  expect(await installCatalogChangeLog(db.pool)).toBe(true);
});

afterAll(async () => {
  await db?.drop();
});

async function fingerprint(): Promise<string> {
  const read = await readChangeLog(db.pool);
  expect(read).not.toBeNull();
  return read!.fingerprint;
}

/** A writer's first batch as MetadataStore.beginWrite sends it, each `also` it was given noted in `batches`. */
function writerBatch(client: PoolClient, batches: (string | undefined)[]) {
  return async (also?: string) => {
    batches.push(also);
    const results = (await client.query(`begin; select 1 as version${also === undefined ? '' : `; ${also}`}`)) as unknown as { rows: ReadRow[] }[];
    return { result: 'begun', alsoRows: also === undefined ? [] : results[2]!.rows };
  };
}

describe('the catalog change log', () => {
  it('is none of the user\'s tables and functions', async () => {
    const catalog = await introspectCatalog(db.pool);
    expect([...catalog.relations.values()].filter((relation) => relation.schema === CHANGE_LOG_SCHEMA)).toEqual([]);
    expect([...catalog.functions.keys()].filter((key) => key.startsWith(`${CHANGE_LOG_SCHEMA}.`))).toEqual([]);
  });

  it('is left as it is by a second installation', async () => {
    const before = await fingerprint();
    expect(await installCatalogChangeLog(db.pool)).toBe(true);
    expect(await fingerprint()).toBe(before);
  });

  it('changes with every kind of DDL the introspection sees, committed by another session', async () => {
    const changes = [
      'create table cl_other (id integer)',
      'alter table cl add column added integer',
      'alter table cl rename column added to renamed',
      'alter table cl alter column renamed type bigint',
      'alter table cl alter column renamed set default 1',
      'alter table cl alter column renamed set not null',
      "comment on column cl.renamed is 'a comment'",
      'alter table cl drop column renamed',
      'create view cl_view as select id from cl',
      "create function cl_fn() returns integer language sql as 'select 1'",
      "create type cl_mood as enum ('sad')",
      "alter type cl_mood add value 'happy'",
      'alter table cl_other add constraint cl_other_key unique (id)',
      "create function cl_trigger_fn() returns trigger language plpgsql as 'begin return new; end'",
      'create trigger cl_trigger before insert on cl for each row execute function cl_trigger_fn()',
      'grant select on cl to public',
      'drop table cl_other',
    ];
    for (const change of changes) {
      const before = await fingerprint();
      await db.sql(change);
      expect(await fingerprint(), change).not.toBe(before);
    }
  });

  it('stays the same when only rows change, and for the publications and refreshes the engine and users run', async () => {
    await db.sql('create materialized view cl_counts as select count(*) as n from cl');
    await db.sql('create publication cl_publication');
    const before = await fingerprint();
    await db.sql("insert into cl (id, name) values (1, 'a'); update cl set name = 'b'; delete from cl");
    await db.sql('alter publication cl_publication add table cl');
    await db.sql('refresh materialized view cl_counts');
    await db.sql('alter publication cl_publication drop table cl');
    expect(await fingerprint()).toBe(before);
  });

  it('is the same inside the transaction that ran the DDL and after it committed, and the same again after a rollback', async () => {
    const client = await db.pool.connect();
    let inside: string;
    try {
      await client.query('begin');
      const outside = await fingerprint();
      await client.query('create table cl_same (id integer)');
      inside = (await readChangeLog(client))!.fingerprint;
      expect(inside).not.toBe(outside);
      await client.query('commit');
      expect(await fingerprint()).toBe(inside);
      await client.query('begin');
      await client.query('create table cl_gone (id integer)');
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(await fingerprint()).toBe(inside);
  });

  it('is emptied past a thousand rows outside the reading transaction, each emptied log reading differently from the last', async () => {
    const fill = () => db.sql(`insert into ${CHANGE_LOG_SCHEMA}.transactions (xid) select ((1000000000000 + g)::text)::xid8 from generate_series(1, 1000) g on conflict do nothing`);
    await fill();
    const full = (await readChangeLog(db.pool))!;
    expect(full.pruneDue).toBe(true);
    const pruned = (await pruneChangeLog(db.pool))!;
    expect(pruned.before).toBe(full.fingerprint);
    expect(await fingerprint()).toBe(pruned.after);
    expect((await readChangeLog(db.pool))!.pruneDue).toBe(false);
    await fill();
    await db.sql('create table cl_after_prune (id integer)');
    const again = (await pruneChangeLog(db.pool))!;
    // Empty again, and yet not the emptied log of before: the DDL in between shows.
    expect(again.after).not.toBe(pruned.after);
    expect(await pruneChangeLog(db.pool)).toBeNull();
  });

  it('is emptied by one prune at a time: another gives up and leaves the log as it is', async () => {
    await db.sql(`insert into ${CHANGE_LOG_SCHEMA}.transactions (xid) select ((4000000000000 + g)::text)::xid8 from generate_series(1, 1000) g`);
    const before = await fingerprint();
    const holder = await db.pool.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table ${CHANGE_LOG_SCHEMA}.transactions in share update exclusive mode`);
      // The trigger's inserts go through meanwhile.
      await db.sql('create table cl_during_prune (id integer)');
      const during = await fingerprint();
      expect(during).not.toBe(before);
      expect(await pruneChangeLog(db.pool)).toBeNull();
      expect(await fingerprint()).toBe(during);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    expect(await pruneChangeLog(db.pool)).not.toBeNull();
  });

  it('lets an instance that last read an emptied log see DDL another instance noted and emptied since', async () => {
    const a = new CatalogCache({ changeLog: true });
    const b = new CatalogCache({ changeLog: true });
    await db.sql(`insert into ${CHANGE_LOG_SCHEMA}.transactions (xid) select ((2000000000000 + g)::text)::xid8 from generate_series(1, 1000) g`);
    await a.read(db.pool);
    await a.prune(db.pool);
    const seenByA = await a.read(db.pool);
    await db.sql('create table cl_migrated (id integer)');
    await db.sql(`insert into ${CHANGE_LOG_SCHEMA}.transactions (xid) select ((3000000000000 + g)::text)::xid8 from generate_series(1, 1000) g`);
    await b.read(db.pool);
    await b.prune(db.pool);
    const now = await a.read(db.pool);
    expect(now).not.toBe(seenByA);
    expect(now.relations.has(relationKey('public', 'cl_migrated'))).toBe(true);
  });

  it('reads differently after its table was truncated or its function altered, and not at all while the function runs as its caller', async () => {
    const before = await fingerprint();
    await db.sql(`truncate ${CHANGE_LOG_SCHEMA}.transactions`);
    const truncated = await fingerprint();
    expect(truncated).not.toBe(before);
    await db.sql(`alter function ${CHANGE_LOG_SCHEMA}.note() security invoker`);
    expect(await readChangeLog(db.pool)).toBeNull();
    await db.sql(`alter function ${CHANGE_LOG_SCHEMA}.note() security definer`);
    expect(await fingerprint()).not.toBe(truncated);
  });

  it('is not read while its trigger is disabled, dropped or its table gone, and a trigger made again reads differently', async () => {
    const before = await fingerprint();
    await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} disable`);
    expect(await readChangeLog(db.pool)).toBeNull();
    await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} enable always`);
    const enabled = await fingerprint();
    expect(enabled).not.toBe(before);

    await db.sql(`drop event trigger ${CHANGE_LOG_TRIGGER}`);
    expect(await readChangeLog(db.pool)).toBeNull();
    expect(await installCatalogChangeLog(db.pool)).toBe(true);
    expect(await fingerprint()).not.toBe(enabled);

    await db.sql(`drop table ${CHANGE_LOG_SCHEMA}.transactions`);
    // The user's DDL goes on while the log cannot note it.
    await db.sql('create table cl_unnoted (id integer)');
    expect(await readChangeLog(db.pool)).toBeNull();
    expect(await installCatalogChangeLog(db.pool)).toBe(true);
    expect(await readChangeLog(db.pool)).not.toBeNull();
  });

  it('reads in a batch of statements what it reads alone, either way, prepared once per connection, and nothing where it is not intact', async () => {
    for (const read of ['plain', 'tolerant'] as const) {
      const client = await db.pool.connect();
      try {
        const statement = await batchedChangeLogRead(client, read);
        expect(await batchedChangeLogRead(client, read)).toBe(statement);
        const batched = async () => {
          const results = (await client.query(`begin; select 1; ${statement}`)) as unknown as { rows: ReadRow[] }[];
          await client.query('rollback');
          return changeLogReadOf(results[2]!.rows);
        };
        const alone = await readChangeLog(client);
        expect(alone).not.toBeNull();
        expect(await batched()).toEqual(alone);
        await db.sql(`create table cl_batched_${read} (id integer)`);
        expect((await batched())!.fingerprint).not.toBe(alone!.fingerprint);
        await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} disable`);
        expect(await batched()).toBeNull();
        await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} enable always`);
        expect(await batched()).toEqual(await readChangeLog(client));
        // After the caller's SQL ran on the connection, its statements are dropped and prepared again.
        await forgetPreparedStatements(client);
        expect(await batchedChangeLogRead(client, read)).toBe(statement);
        expect(await batched()).toEqual(await readChangeLog(client));
      } finally {
        client.release();
      }
    }
  });

  /**
   * A writer's batches on `client` through `cache`, each rolled back, with what `begin`
   * returned, the log as each read it and the catalog then. The connection's statements are prepared anew: a test
   * before may have deallocated one behind the engine's back.
   */
  async function batchReader(cache: CatalogCache, client: PoolClient, batches: (string | undefined)[]) {
    await forgetPreparedStatements(client);
    const begin = writerBatch(client, batches);
    return async () => {
      const { begun, logged } = await cache.beginWithRead(client, begin);
      const catalog = await cache.read(client, logged === undefined ? {} : { logged });
      await client.query('rollback');
      return { read: logged?.read, catalog, begun };
    };
  }

  it('takes the log as the batch of a writer read it: keeps the catalog while it is unchanged, introspects after DDL or when the batch found it broken', async () => {
    const cache = new CatalogCache({ changeLog: true });
    const client = await db.pool.connect();
    const batches: (string | undefined)[] = [];
    const inBatch = await batchReader(cache, client, batches);
    const readInBatch = async () => {
      const { begun, catalog } = await inBatch();
      expect(begun.result).toBe('begun');
      return catalog;
    };
    try {
      const first = await readInBatch();
      expect(await readInBatch()).toBe(first);
      await db.sql('create table cl_batched_cache (id integer)');
      const second = await readInBatch();
      expect(second.relations.has(relationKey('public', 'cl_batched_cache'))).toBe(true);
      await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} disable`);
      expect(await readInBatch()).not.toBe(second);
      await db.sql(`alter event trigger ${CHANGE_LOG_TRIGGER} enable always`);
      expect(batches.every((also) => also !== undefined)).toBe(true);
    } finally {
      client.release();
    }
    const scanning = new CatalogCache({ changeLog: false });
    expect(await scanning.beginWithRead(client, async (also) => ({ also, alsoRows: [] }))).toEqual({ begun: { also: undefined, alsoRows: [] } });
  });

  it('begins the batch again without the read where the statement prepared for it is gone, as behind a pooler, and reads the log on its own from then on', async () => {
    const cache = new CatalogCache({ changeLog: true });
    const client = await db.pool.connect();
    const batches: (string | undefined)[] = [];
    const begin = writerBatch(client, batches);
    try {
      await batchedChangeLogRead(client, 'plain');
      // Gone behind the engine's back: another server connection of a pooler, say.
      await client.query('deallocate service_change_log_read_plain');
      const first = await cache.beginWithRead(client, begin);
      expect(first).toEqual({ begun: { result: 'begun', alsoRows: [] }, again: true });
      const catalog = await cache.read(client);
      expect(catalog.relations.has(relationKey('public', 'cl'))).toBe(true);
      await client.query('rollback');
      expect(await cache.beginWithRead(client, begin)).toEqual({ begun: { result: 'begun', alsoRows: [] } });
      await client.query('rollback');
      expect(batches).toEqual([expect.stringContaining('execute'), undefined, undefined]);
    } finally {
      client.release();
    }
  });

  it('reads the log through query_to_xml from then on once the batch cannot name its table, and scans while the log is broken', async () => {
    const cache = new CatalogCache({ changeLog: true });
    const client = await db.pool.connect();
    const batches: (string | undefined)[] = [];
    const readInBatch = await batchReader(cache, client, batches);
    try {
      expect((await readInBatch()).read).not.toBeNull();
      await db.sql(`drop table ${CHANGE_LOG_SCHEMA}.transactions`);
      await db.sql('create table cl_log_gone (id integer)');
      const gone = await readInBatch();
      expect(gone.read).toBeNull();
      expect(gone.catalog.relations.has(relationKey('public', 'cl_log_gone'))).toBe(true);
      expect(batches).toEqual(['execute service_change_log_read_plain', 'execute service_change_log_read_plain', 'execute service_change_log_read_batched']);
      expect(await installCatalogChangeLog(db.pool)).toBe(true);
      await db.sql('create table cl_log_back (id integer)');
      const back = await readInBatch();
      expect(back.read).not.toBeNull();
      expect(back.catalog.relations.has(relationKey('public', 'cl_log_back'))).toBe(true);
      expect(batches.at(-1)).toBe('execute service_change_log_read_batched');
    } finally {
      client.release();
    }
  });

  it('falls back to the read through query_to_xml where the plain read cannot even be prepared, its table gone before the connection prepared it', async () => {
    const cache = new CatalogCache({ changeLog: true });
    const client = await db.pool.connect();
    const batches: (string | undefined)[] = [];
    const readInBatch = await batchReader(cache, client, batches);
    try {
      await db.sql(`drop table ${CHANGE_LOG_SCHEMA}.transactions`);
      await db.sql('create table cl_never_prepared (id integer)');
      const gone = await readInBatch();
      expect(gone.read).toBeNull();
      expect(gone.catalog.relations.has(relationKey('public', 'cl_never_prepared'))).toBe(true);
      expect(batches).toEqual(['execute service_change_log_read_batched']);
    } finally {
      client.release();
      expect(await installCatalogChangeLog(db.pool)).toBe(true);
    }
  });

  it('falls back to the read through query_to_xml for a role that may not read the log, which scans', async () => {
    const role = `cl_batch_reader_${Date.now()}`;
    await db.sql(`create role ${role}; grant usage on schema ${CHANGE_LOG_SCHEMA} to ${role}`);
    const cache = new CatalogCache({ changeLog: true });
    const client = await db.pool.connect();
    const batches: (string | undefined)[] = [];
    const readInBatch = await batchReader(cache, client, batches);
    try {
      await client.query(`set role ${role}`);
      const first = await readInBatch();
      expect(first.read).toBeNull();
      expect(first.catalog.relations.has(relationKey('public', 'cl'))).toBe(true);
      expect(batches).toEqual(['execute service_change_log_read_plain', 'execute service_change_log_read_batched']);
    } finally {
      await client.query('reset role');
      client.release();
      await db.sql(`drop owned by ${role}; drop role ${role}`);
    }
  });

  it('keeps the catalog while nothing changed, and introspects after DDL, whether the log is read or the catalogs scanned', async () => {
    for (const changeLog of [true, false]) {
      const cache = new CatalogCache({ changeLog });
      const first = await cache.read(db.pool);
      expect(await cache.read(db.pool)).toBe(first);
      await db.sql(`create table cl_cached_${String(changeLog)} (id integer)`);
      const second = await cache.read(db.pool);
      expect(second).not.toBe(first);
      expect(second.relations.has(relationKey('public', `cl_cached_${String(changeLog)}`))).toBe(true);
    }
  });

  it('introspects when the trigger was dropped, DDL ran and the trigger was made again', async () => {
    const cache = new CatalogCache({ changeLog: true });
    const first = await cache.read(db.pool);
    await db.sql(`drop event trigger ${CHANGE_LOG_TRIGGER}`);
    await db.sql('create table cl_while_dropped (id integer)');
    expect(await installCatalogChangeLog(db.pool)).toBe(true);
    const second = await cache.read(db.pool);
    expect(second.relations.has(relationKey('public', 'cl_while_dropped'))).toBe(true);
    expect(second).not.toBe(first);
  });

  it('is not read by a role that may not read and empty its table, which scans instead', async () => {
    const role = `cl_reader_${Date.now()}`;
    await db.sql(`create role ${role}; grant usage on schema ${CHANGE_LOG_SCHEMA} to ${role}; grant select on ${CHANGE_LOG_SCHEMA}.transactions to ${role}; grant select, usage on ${CHANGE_LOG_SCHEMA}.prunes to ${role}`);
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`set local role ${role}`);
      expect(await readChangeLog(client)).toBeNull();
      const cache = new CatalogCache({ changeLog: true });
      expect((await cache.read(client)).relations.has(relationKey('public', 'cl'))).toBe(true);
    } finally {
      await client.query('rollback');
      client.release();
      await db.sql(`drop owned by ${role}; drop role ${role}`);
    }
  });

  it('is not installed in a schema another role owns, whose owner could replace what the superuser\'s function writes to', async () => {
    const other = await createTestDatabase();
    const role = `cl_squatter_${Date.now()}`;
    try {
      await other.sql(`create role ${role}; create schema ${CHANGE_LOG_SCHEMA} authorization ${role}`);
      expect(await installCatalogChangeLog(other.pool)).toBe(false);
      expect(await readChangeLog(other.pool)).toBeNull();
      expect((await other.sql(`select count(*)::int as n from pg_catalog.pg_event_trigger where evtname = '${CHANGE_LOG_TRIGGER}'`)).rows[0].n).toBe(0);
    } finally {
      await other.drop();
      await db.sql(`drop role if exists ${role}`);
    }
  });

  it('is not installed by a role that may not create event triggers, which then scans', async () => {
    const other = await createTestDatabase();
    const role = `cl_plain_${Date.now()}`;
    try {
      await db.sql(`create role ${role} login password 'plain'`);
      await other.sql(`grant create on database ${new URL(other.url).pathname.slice(1)} to ${role}; grant create on schema public to ${role}`);
      const url = new URL(other.url);
      url.username = role;
      url.password = 'plain';
      const plain = createPool(url.toString(), { max: 1, applicationName: 'test' });
      try {
        expect(await installCatalogChangeLog(plain)).toBe(false);
        expect(await readChangeLog(plain)).toBeNull();
        const cache = new CatalogCache({ changeLog: true });
        const first = await cache.read(plain);
        await plain.query('create table plain_made (id integer)');
        expect((await cache.read(plain)).relations.has(relationKey('public', 'plain_made'))).toBe(true);
        expect(first.relations.has(relationKey('public', 'plain_made'))).toBe(false);
      } finally {
        await plain.end();
      }
    } finally {
      await other.drop();
      await db.sql(`drop role if exists ${role}`);
    }
  });
});
