import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataStore } from '../../src/metadata/store.js';
import { inTransaction } from '../../src/pg/transaction.js';
import { followTables, publishedAmong, reconcilePublication } from '../../src/pg/replication/publication.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import type { PoolClient } from '../../src/pg/pool.js';

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
        // Every failed try let go of its savepoint: none is left open for the transaction to carry.
        await client.query('savepoint probe');
        await expect(client.query('release savepoint follow_tables')).rejects.toMatchObject({ code: '3B001' });
        await client.query('rollback to savepoint probe');
      });
      expect(await published()).toEqual(expect.arrayContaining(['public.mine_a', 'public.mine_b']));
      expect(await published()).not.toContain('public.theirs');
    } finally {
      await db.sql(`alter publication service_graphql_events owner to current_user; drop table mine_a, mine_b, theirs; drop owned by ${engineRole}, ${otherRole}; drop role ${engineRole}; drop role ${otherRole}`);
    }
  });
});

describe('followTables, one table at a time as track_table adds it', () => {
  /** Runs `body` in a transaction that is rolled back, so the shared publication stays as it was. */
  const rolledBack = async (body: (client: PoolClient) => Promise<void>) => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await body(client);
    } finally {
      await client.query('rollback');
      client.release();
    }
  };
  const members = async (client: PoolClient) => (await client.query("select tablename from pg_publication_tables where pubname = 'service_graphql_events' order by 1")).rows.map((row: { tablename: string }) => row.tablename);

  it('adds a table that can follow in two round trips: the question, and the statement with its savepoint', async () => {
    await db.sql('create table one_at_a_time (id integer primary key); create table one_more (id integer primary key)');
    try {
      await rolledBack(async (client) => {
        await followTables(client, [table('one_at_a_time')]);
        const texts: string[] = [];
        const query = client.query.bind(client);
        client.query = ((config: string | { text: string }, ...rest: unknown[]) => (texts.push(typeof config === 'string' ? config : config.text), (query as (...args: unknown[]) => unknown)(config, ...rest))) as typeof client.query;
        try {
          await followTables(client, [table('one_more')]);
        } finally {
          client.query = query;
        }
        expect(texts).toHaveLength(2);
        expect(await members(client)).toEqual(expect.arrayContaining(['one_at_a_time', 'one_more']));
      });
    } finally {
      await db.sql('drop table one_at_a_time, one_more');
    }
  });

  it('creates the publication when it is missing, and leaves it missing, the transaction usable, when it may not', async () => {
    const role = `follow_no_create_${randomBytes(4).toString('hex')}`;
    await db.sql(`create table first_followed (id integer primary key); create role ${role}; grant all on table first_followed to ${role}`);
    try {
      await rolledBack(async (client) => {
        await client.query('drop publication service_graphql_events');
        await followTables(client, [table('first_followed')]);
        expect(await members(client)).toEqual(['first_followed', 'metadata']);
      });
      await rolledBack(async (client) => {
        await client.query('drop publication service_graphql_events');
        await client.query(`set local role ${role}`);
        await followTables(client, [table('first_followed')]);
        expect((await client.query("select count(*)::int as n from pg_publication where pubname = 'service_graphql_events'")).rows).toEqual([{ n: 0 }]);
      });
    } finally {
      await db.sql(`drop table first_followed; drop owned by ${role}; drop role ${role}`);
    }
  });

  it('asks nothing more of a table that cannot follow or is already in', async () => {
    await rolledBack(async (client) => {
      const before = await members(client);
      await followTables(client, [table('without_key'), table('a_view'), table('followed'), table('no_such_table')]);
      expect(await members(client)).toEqual(before);
    });
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
