import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';

/** Permission filters and checks, and the v1 data API's where, in Hasura's `$` spelling ($or, $eq, $ceq...), as older metadata carries them. */
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table author (id serial primary key, name text not null, owner_id text, tags jsonb not null default '{}', rank int not null default 0);
    create table article (id serial primary key, title text not null, author_id int not null references author(id), rank int not null default 0);
    insert into author (name, owner_id, tags, rank) values ('Ann', '1', '{"a": 1}', 1), ('Bob', '2', '{"b": 1}', 2), ('Cid', null, '{}', 3);
    insert into article (title, author_id, rank) values ('First', 1, 1), ('Second', 2, 5), ('Third', 3, 3);
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
});
afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});
beforeEach(async () => {
  await engine.query({ type: 'clear_metadata', args: {} });
  await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    ],
  });
});

const user = (id: string) => ({ 'x-service-admin-secret': 'secret', 'x-service-role': 'user', 'x-service-user-id': id });
const names = async (id: string, query = '{ author(order_by: {id: asc}) { name } }') => {
  const result = await engine.graphql({ query }, user(id));
  expect(result.json.errors).toBeUndefined();
  return result.json.data;
};
const selectOn = (table: string, filter: unknown) =>
  engine.query({ type: 'create_select_permission', args: { table, role: 'user', permission: { columns: '*', filter } } });

describe('$-spelled boolean expressions in permissions', () => {
  const cases: Array<[string, unknown, unknown, string[]]> = [
    ['$or/$eq', { $or: [{ owner_id: { $eq: 'X-Service-User-Id' } }, { name: { $eq: 'Cid' } }] }, { _or: [{ owner_id: { _eq: 'X-Service-User-Id' } }, { name: { _eq: 'Cid' } }] }, ['Ann', 'Cid']],
    ['$and/$gt/$lte', { $and: [{ rank: { $gt: 1 } }, { rank: { $lte: 3 } }] }, { _and: [{ rank: { _gt: 1 } }, { rank: { _lte: 3 } }] }, ['Bob', 'Cid']],
    ['$not/$in', { $not: { name: { $in: ['Ann', 'Bob'] } } }, { _not: { name: { _in: ['Ann', 'Bob'] } } }, ['Cid']],
    ['$nin/$ne/$neq', { name: { $nin: ['Ann'], $ne: 'Bob' } }, { name: { _nin: ['Ann'], _neq: 'Bob' } }, ['Cid']],
    ['$like/$ilike/$nlike/$nilike', { name: { $like: '%n%', $ilike: 'a%', $nlike: 'B%', $nilike: 'c%' } }, { name: { _like: '%n%', _ilike: 'a%', _nlike: 'B%', _nilike: 'c%' } }, ['Ann']],
    ['$similar/$nsimilar', { name: { $similar: '(A|B)%', $nsimilar: 'B%' } }, { name: { _similar: '(A|B)%', _nsimilar: 'B%' } }, ['Ann']],
    ['$is_null/$gte/$lt', { owner_id: { $is_null: false }, rank: { $gte: 2, $lt: 3 } }, { owner_id: { _is_null: false }, rank: { _gte: 2, _lt: 3 } }, ['Bob']],
    ['$contains/$contained_in', { tags: { $contains: { a: 1 }, $contained_in: { a: 1, c: 2 } } }, { tags: { _contains: { a: 1 }, _contained_in: { a: 1, c: 2 } } }, ['Ann']],
    ['$has_key/$has_keys_any/$has_keys_all', { tags: { $has_key: 'b', $has_keys_any: ['b', 'z'], $has_keys_all: ['b'] } }, { tags: { _has_key: 'b', _has_keys_any: ['b', 'z'], _has_keys_all: ['b'] } }, ['Bob']],
    ['$ceq/$cne', { $or: [{ owner_id: { $ceq: 'name' } }, { name: { $cne: 'name' } }] }, { _or: [{ owner_id: { _ceq: 'name' } }, { name: { _cne: 'name' } }] }, []],
    ['$exists', { $exists: { _table: 'article', _where: { title: { $eq: 'Second' } } }, rank: { $eq: 2 } }, { _exists: { _table: 'article', _where: { title: { _eq: 'Second' } } }, rank: { _eq: 2 } }, ['Bob']],
  ];

  it.each(cases)('%s: the same rows as the _ spelling, and exported as written', async (_label, dollar, underscore, expected) => {
    expect((await selectOn('author', dollar)).json).toEqual({ message: 'success' });
    const withDollar = await names('1');
    expect(withDollar.author.map((row: { name: string }) => row.name)).toEqual(expected);
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    const author = exported.json.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === 'author');
    expect(author.select_permissions[0].permission.filter).toEqual(dollar);
    await engine.query({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } });
    await selectOn('author', underscore);
    expect(await names('1')).toEqual(withDollar);
  });

  it('reads $-spelled filters through relationships and on writes (insert check, update filter and check, delete filter)', async () => {
    await engine.query({
      type: 'bulk',
      args: [
        { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: { author: { owner_id: { $eq: 'X-Service-User-Id' } } } } } },
        { type: 'create_insert_permission', args: { table: 'article', role: 'user', permission: { columns: '*', check: { $and: [{ author: { owner_id: { $eq: 'X-Service-User-Id' } } }, { rank: { $ceq: ['$', 'author_id'] } }] } } } },
        { type: 'create_update_permission', args: { table: 'article', role: 'user', permission: { columns: ['title'], filter: { author_id: { $eq: 1 } }, check: { title: { $nlike: '%!' } } } } },
        { type: 'create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: { $not: { rank: { $gt: 1 } } } } } },
      ],
    });
    expect(await names('2', '{ article { title } }')).toEqual({ article: [{ title: 'Second' }] });
    const refused = await engine.graphql({ query: 'mutation { insert_article_one(object: {title: "x", author_id: 1, rank: 0}) { id } }' }, user('1'));
    expect(refused.json.errors[0].extensions.code).toBe('permission-error');
    const allowed = await engine.graphql({ query: 'mutation { insert_article_one(object: {title: "Fourth", author_id: 1, rank: 1}) { title } }' }, user('1'));
    expect(allowed.json).toEqual({ data: { insert_article_one: { title: 'Fourth' } } });
    const updated = await engine.graphql({ query: 'mutation { update_article(where: {}, _set: {title: "New"}) { affected_rows } }' }, user('1'));
    expect(updated.json).toEqual({ data: { update_article: { affected_rows: 2 } } });
    const badUpdate = await engine.graphql({ query: 'mutation { update_article(where: {}, _set: {title: "New!"}) { affected_rows } }' }, user('1'));
    expect(badUpdate.json.errors[0].extensions.code).toBe('permission-error');
    const deleted = await engine.graphql({ query: 'mutation { delete_article(where: {}) { returning { title } } }' }, user('1'));
    expect(deleted.json).toEqual({ data: { delete_article: { returning: [{ title: 'New' }, { title: 'New' }] } } });
  });

  it('takes $ operators in the v1 data API where', async () => {
    const rows = await engine.query({ type: 'select', args: { table: 'author', columns: ['name'], where: { $or: [{ name: { $eq: 'Ann' } }, { rank: { $gte: 3 } }] }, order_by: ['id'] } });
    expect(rows.json).toEqual([{ name: 'Ann' }, { name: 'Cid' }]);
  });

  it('refuses an unknown $ operator, a $or that is no list, and a $-named column that does not exist', async () => {
    const operator = await selectOn('author', { name: { $bogus: 'x' } });
    expect(operator.status).toBe(400);
    expect(operator.json.error).toContain('"$bogus"');
    const list = await selectOn('author', { $or: { name: { $eq: 'x' } } });
    expect(list.status).toBe(400);
    expect(list.json.error).toContain('expected an array for $or');
    const column = await selectOn('author', { $name: { $eq: 'x' } });
    expect(column.status).toBe(400);
    expect(column.json.error).toContain('no such column or relationship exists: "$name"');
    const exported = await engine.query({ type: 'export_metadata', args: {} });
    expect(exported.json.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === 'author').select_permissions).toBeUndefined();
  });
});
