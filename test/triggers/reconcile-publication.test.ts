import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataStore } from '../../src/metadata/store.js';
import { inTransaction } from '../../src/pg/transaction.js';
import { followTables, publishedAmong, reconcilePublication } from '../../src/pg/replication/publication.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

/**
 * The capture's safety net (triggers actor, capture/supervisor.ts): the publication brought
 * to the stored metadata in one pass, whatever was in it before.
 */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await new MetadataStore(db.pool).setUp();
  await db.sql(`
    create table with_trigger (id integer primary key);
    create table followed (id integer primary key);
    create table already_followed (id integer primary key);
    create table without_key (id integer);
    create unlogged table not_logged (id integer primary key);
    create table untracked_now (id integer primary key);
    create view a_view as select id from followed;
    create publication service_graphql_events for table service_catalog.metadata, already_followed, untracked_now;
  `);
});

afterAll(async () => {
  await db?.drop();
});

const published = async (): Promise<string[]> =>
  (await db.sql("select schemaname || '.' || tablename as name from pg_publication_tables where pubname = 'service_graphql_events' order by 1")).rows.map((row: { name: string }) => row.name);

const table = (name: string) => ({ schema: 'public', name });

describe('reconcilePublication', () => {
  it('adds trigger tables (with REPLICA IDENTITY FULL) and the tracked tables that can follow, and takes out the rest', async () => {
    const triggerTables = [table('with_trigger'), table('gone_with_trigger')];
    const trackedTables = ['with_trigger', 'followed', 'already_followed', 'without_key', 'not_logged', 'a_view', 'gone'].map(table);
    await inTransaction(db.pool, (client) => reconcilePublication(client, triggerTables, trackedTables));
    expect(await published()).toEqual(['public.already_followed', 'public.followed', 'public.with_trigger', 'service_catalog.metadata']);
    const identities = await db.sql("select relname, relreplident from pg_class where relname in ('with_trigger', 'followed') order by 1");
    expect(identities.rows).toEqual([
      { relname: 'followed', relreplident: 'd' },
      { relname: 'with_trigger', relreplident: 'f' },
    ]);
  });

  it('changes nothing when the publication already matches', async () => {
    const before = await db.sql("select xmin::text from pg_publication where pubname = 'service_graphql_events'");
    await inTransaction(db.pool, (client) => reconcilePublication(client, [table('with_trigger')], ['with_trigger', 'followed', 'already_followed', 'without_key', 'a_view'].map(table)));
    expect(await published()).toEqual(['public.already_followed', 'public.followed', 'public.with_trigger', 'service_catalog.metadata']);
    expect((await db.sql("select xmin::text from pg_publication where pubname = 'service_graphql_events'")).rows).toEqual(before.rows);
  });

  it('takes a table out when it loses its trigger and is no longer tracked', async () => {
    await inTransaction(db.pool, (client) => reconcilePublication(client, [], [table('followed')]));
    expect(await published()).toEqual(['public.followed', 'service_catalog.metadata']);
  });
});

describe('followTables', () => {
  it('adds the tables it may a hundred to a statement, and each on its own when one of them cannot be added', async () => {
    const suffix = randomBytes(4).toString('hex');
    const engineRole = `follow_engine_${suffix}`;
    const otherRole = `follow_other_${suffix}`;
    const database = new URL(db.url).pathname.slice(1);
    await db.sql(`
      create role ${engineRole};
      create role ${otherRole};
      grant create on database ${database} to ${engineRole};
      create table mine_a (id integer primary key);
      create table mine_b (id integer primary key);
      create table theirs (id integer primary key);
      alter table mine_a owner to ${engineRole};
      alter table mine_b owner to ${engineRole};
      alter table theirs owner to ${otherRole};
      alter publication service_graphql_events owner to ${engineRole};
    `);
    try {
      // As an engine that owns its tables and the publication, but not every tracked table.
      await inTransaction(db.pool, async (client) => {
        await client.query(`set local role ${engineRole}`);
        await followTables(client, [table('mine_a'), table('theirs'), table('mine_b'), table('a_view')]);
      });
      expect(await published()).toEqual(expect.arrayContaining(['public.mine_a', 'public.mine_b']));
      expect(await published()).not.toContain('public.theirs');
    } finally {
      await db.sql(`alter publication service_graphql_events owner to current_user; drop table mine_a, mine_b, theirs; drop owned by ${engineRole}, ${otherRole}; drop role ${engineRole}; drop role ${otherRole}`);
    }
  });
});

describe('publishedAmong', () => {
  it('tells the members as pg_publication_tables does: listed tables, partitions of a listed partitioned table, tables of a listed schema', async () => {
    await db.sql(`
      create table among_listed (id integer primary key);
      create table among_unlisted (id integer primary key);
      create table among_parted (id integer primary key) partition by range (id);
      create table among_part partition of among_parted for values from (0) to (100);
      create schema among_schema;
      create table among_schema.inside (id integer primary key);
      create unlogged table among_schema.unlogged_inside (id integer primary key);
      alter publication service_graphql_events add table among_listed, among_parted;
      alter publication service_graphql_events add tables in schema among_schema;
    `);
    try {
      const asked = [table('among_listed'), table('among_unlisted'), table('among_parted'), table('among_part'), { schema: 'among_schema', name: 'inside' }, { schema: 'among_schema', name: 'unlogged_inside' }, table('no_such_table')];
      const members = new Set(await published());
      const expected = asked.map((item) => `${item.schema}.${item.name}`).filter((name) => members.has(name));
      expect(expected).toEqual(['public.among_listed', 'public.among_part', 'among_schema.inside']);
      const found = await inTransaction(db.pool, (client) => publishedAmong(client, asked));
      expect([...found].sort()).toEqual(expected.map((name) => JSON.stringify(name.split('.'))).sort());
    } finally {
      await db.sql('alter publication service_graphql_events drop tables in schema among_schema; alter publication service_graphql_events drop table among_listed, among_parted; drop schema among_schema cascade; drop table among_listed, among_unlisted, among_parted');
    }
  });
});
