import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';

/**
 * run_sql renames reach the columns a permission names inside nested expressions:
 * `<rel>_aggregate` count filters and arguments, table computed fields; a type change
 * of such a column is refused.
 */
let db: TestDatabase;
let engine: TestEngine;

const SCHEMA = `
  drop table if exists article, author cascade;
  create table author (id serial primary key, name text not null, owner_id text);
  create table article (id serial primary key, title text not null, author_id int not null references author(id), a text, b text);
  insert into author (name, owner_id) values ('Ann', '1'), ('Bob', '2'), ('Cy', '3');
  insert into article (title, author_id, a, b) values ('A1', 1, '1', '2'), ('B1', 2, '2', '1'), ('C1', 3, '1', null);
  create function author_written(author_row author) returns setof article as $$ select * from article where author_id = author_row.id $$ language sql stable;
`;

beforeAll(async () => {
  db = await createTestDatabase();
  engine = await startTestEngine({ databaseUrl: db.url });
});
afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});
beforeEach(async () => {
  await engine.query({ type: 'clear_metadata', args: {} });
  await db.sql(SCHEMA);
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: 'author' },
      { type: 'track_table', args: 'article' },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'written', definition: { function: 'author_written' } } },
    ],
  });
  expect(setup.status).toBe(200);
});

const runSql = (sql: string) => engine.query({ type: 'run_sql', args: { sql } });
const authorFilter = async () => (await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables[1].select_permissions[0].permission.filter;
const user = { 'x-service-admin-secret': 'secret', 'x-service-role': 'user', 'x-service-user-id': '1' };
const visibleAuthors = async () => (await engine.graphql({ query: '{ author(order_by: {id: asc}) { name } }' }, user)).json;

async function allowAuthors(filter: object): Promise<void> {
  const created = await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter } } });
  expect(created.json).toEqual({ message: "success" });
}

/** Authors with a related article whose `a` is the user's id, counting those with a `b`. */
const AGGREGATE_FILTER = { articles_aggregate: { count: { filter: { a: { _eq: 'X-Service-User-Id' } }, arguments: ['b'], predicate: { _gt: 0 } } } };

describe('run_sql renames inside nested boolean expressions', () => {
  it('carries a rename into an aggregate count filter and its arguments', async () => {
    await allowAuthors(AGGREGATE_FILTER);
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }] } });
    expect((await runSql('alter table article rename column a to a2; alter table article rename column b to b2')).json).toEqual({ result_type: 'CommandOk', result: null });
    expect(await authorFilter()).toEqual({ articles_aggregate: { count: { filter: { a2: { _eq: 'X-Service-User-Id' } }, arguments: ['b2'], predicate: { _gt: 0 } } } });
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }] } });
    expect((await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
  });

  it('keeps the rows a role sees when two columns of an aggregate filter swap names', async () => {
    await allowAuthors(AGGREGATE_FILTER);
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }] } });
    const swapped = await runSql('alter table article rename column a to tmp; alter table article rename column b to a; alter table article rename column tmp to b');
    expect(swapped.json).toEqual({ result_type: 'CommandOk', result: null });
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }] } });
    expect(await authorFilter()).toEqual({ articles_aggregate: { count: { filter: { b: { _eq: 'X-Service-User-Id' } }, arguments: ['a'], predicate: { _gt: 0 } } } });
  });

  it('carries a rename into the nested expression of a table computed field', async () => {
    await allowAuthors({ written: { a: { _eq: 'X-Service-User-Id' } } });
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }, { name: 'Cy' }] } });
    expect((await runSql('alter table article rename column a to a2')).json).toEqual({ result_type: 'CommandOk', result: null });
    expect(await authorFilter()).toEqual({ written: { a2: { _eq: 'X-Service-User-Id' } } });
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }, { name: 'Cy' }] } });
  });

  it('carries a rename through $-spelled connectives, _not and _exists inside an aggregate filter', async () => {
    const nested = (a: string, owner: string) => ({
      articles_aggregate: { count: { filter: { $and: [{ $not: { [a]: { $eq: '2' } } }, { _exists: { _table: 'author', _where: { [owner]: { _eq: 'X-Service-User-Id' } } } }] }, predicate: { _gt: 0 } } },
    });
    await allowAuthors(nested('a', 'owner_id'));
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }, { name: 'Cy' }] } });
    expect((await runSql('alter table article rename column a to a2; alter table author rename column owner_id to owner')).json).toEqual({ result_type: 'CommandOk', result: null });
    expect(await authorFilter()).toEqual(nested('a2', 'owner'));
    expect(await visibleAuthors()).toEqual({ data: { author: [{ name: 'Ann' }, { name: 'Cy' }] } });
  });

  it('refuses a type change of a column compared only inside an aggregate filter', async () => {
    await allowAuthors(AGGREGATE_FILTER);
    const refused = await runSql('alter table article alter column a type varchar(20)');
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      path: '$.args',
      code: 'dependency-error',
      error: 'cannot change type of column "a" in table "article" because of the following dependencies : permission author.user.select',
    });
    const columns = await db.sql("select data_type from information_schema.columns where table_name = 'article' and column_name = 'a'");
    expect(columns.rows).toEqual([{ data_type: 'text' }]);
  });
});
