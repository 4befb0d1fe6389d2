import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogFingerprint } from '../../src/pg/catalog-cache.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql('create table fp (id integer primary key, name text)');
});

afterAll(async () => {
  await db?.drop();
});

describe('catalogFingerprint', () => {
  it('changes with every kind of DDL the introspection sees, committed by another session', async () => {
    const changes = [
      'create table fp_other (id integer)',
      'alter table fp add column added integer',
      'alter table fp rename column added to renamed',
      'alter table fp alter column renamed type bigint',
      'alter table fp alter column renamed set default 1',
      'alter table fp alter column renamed set not null',
      "comment on column fp.renamed is 'a comment'",
      'alter table fp drop column renamed',
      'create view fp_view as select id from fp',
      "create function fp_fn() returns integer language sql as 'select 1'",
      "create type fp_mood as enum ('sad')",
      "alter type fp_mood add value 'happy'",
      'alter table fp_other add constraint fp_other_key unique (id)',
      'drop table fp_other',
    ];
    for (const change of changes) {
      const before = await catalogFingerprint(db.pool);
      await db.sql(change);
      expect(await catalogFingerprint(db.pool), change).not.toBe(before);
    }
  });

  it('stays the same when only rows change', async () => {
    const before = await catalogFingerprint(db.pool);
    await db.sql("insert into fp (id, name) values (1, 'a'); update fp set name = 'b'; delete from fp");
    expect(await catalogFingerprint(db.pool)).toBe(before);
  });

  it('is the same whichever transaction reads it: one that wrote the DDL itself, later ones, and after the catalogs are frozen', async () => {
    const client = await db.pool.connect();
    let inside: string;
    try {
      await client.query('begin');
      // The transaction has an id of its own now: its rows' ages count from it, not from the next id.
      await client.query('create table fp_same (id integer)');
      inside = await catalogFingerprint(client);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await catalogFingerprint(db.pool)).toBe(inside);
    // Unrelated transactions move the next transaction id on.
    for (let i = 0; i < 5; i++) await db.sql('select pg_catalog.pg_current_xact_id()');
    expect(await catalogFingerprint(db.pool)).toBe(inside);
    await db.sql('vacuum (freeze) pg_catalog.pg_class, pg_catalog.pg_attribute');
    expect(await catalogFingerprint(db.pool)).toBe(inside);
  });
});
