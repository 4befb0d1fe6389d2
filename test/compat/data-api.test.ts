import { beforeAll, describe, expect, it } from 'vitest';
import { admin, asUser, useMutationFixture } from '../mutations/fixture.js';

/**
 * The v1 data API on /v1/query (Hasura's `select`, `count`, `insert`, `update`, `delete`)
 * over HTTP, for the admin and for role `user` of the mutation fixture, whose permissions
 * GraphQL enforces in test/mutations: the same permissions must hold by this route.
 * Role `reader` adds a select permission with a row limit and a session-variable filter;
 * tables `audit` and `tally` (a bigint) are tracked with no permission for any role; role
 * `blind` may insert, update and delete authors but not select them.
 */
const fixture = useMutationFixture();

const query = (type: string, args: unknown, headers: Record<string, string> = admin) => fixture().engine.query({ type, args }, headers);
const asReader = (id: string) => ({ ...admin, 'x-service-role': 'reader', 'x-service-user-id': id });
const asBlind = { ...admin, 'x-service-role': 'blind' };

beforeAll(async () => {
  const setup = await fixture().engine.query({
    type: 'bulk',
    args: [
      { type: 'create_select_permission', args: { table: 'author', role: 'reader', permission: { columns: ['id', 'name'], filter: { owner_id: { _neq: 'X-Service-User-Id' } }, limit: 1 } } },
      { type: 'track_table', args: { name: 'audit' } },
      { type: 'run_sql', args: { sql: 'create table tally (id bigint primary key); insert into tally values (9007199254740993)' } },
      { type: 'track_table', args: { name: 'tally' } },
      { type: 'create_insert_permission', args: { table: 'author', role: 'blind', permission: { check: {}, columns: ['name'] } } },
      { type: 'create_update_permission', args: { table: 'author', role: 'blind', permission: { filter: {}, columns: ['name'] } } },
      { type: 'create_delete_permission', args: { table: 'author', role: 'blind', permission: { filter: {} } } },
    ],
  });
  expect(setup.status).toBe(200);
});

describe('select', () => {
  it('answers the admin every row, with the columns asked in order', async () => {
    const result = await query('select', { table: 'author', columns: ['name', 'id'], order_by: '+id' });
    expect(result.status).toBe(200);
    expect(JSON.stringify(result.json)).toBe('[{"name":"Ada","id":1},{"name":"Brian","id":2}]');
  });

  it('answers the JSON PostgreSQL built, bigint values beyond 2^53 unrounded', async () => {
    const result = await query('select', { table: 'tally', columns: ['id'] });
    expect(result.text).toBe('[{"id" : 9007199254740993}]');
    const bulk = await fixture().engine.query({ type: 'bulk', args: [{ type: 'count', args: { table: 'tally' } }, { type: 'select', args: { table: 'tally', columns: ['id'] } }] });
    expect(bulk.text).toBe('[{"count" : 1},[{"id" : 9007199254740993}]]');
  });

  it('expands * and reads relationships with their own where, order_by and limit', async () => {
    await fixture().db.sql(`insert into article (author_id, title) values (1, 'Gears'), (1, 'Axles')`);
    const result = await query('select', {
      table: { schema: 'public', name: 'author' },
      columns: ['id', { name: 'articles', columns: ['title'], where: { title: { _neq: 'Engines' } }, order_by: [{ column: 'title', type: 'desc' }], limit: 5 }],
      where: { name: { _eq: 'Ada' } },
    });
    expect(result.json).toEqual([{ id: 1, articles: [{ title: 'Gears' }, { title: 'Axles' }] }]);
    const star = await query('select', { table: 'article', columns: ['*', { name: 'author', columns: ['name'] }], where: { id: { _eq: 1 } } });
    expect(star.json).toEqual([{ id: 1, author_id: 1, title: 'Engines', is_published: true, views: 0, author: { name: 'Ada' } }]);
  });

  it("takes Hasura's {column: value} shorthand and session variables in where", async () => {
    expect((await query('select', { table: 'author', columns: ['name'], where: { id: 2 } })).json).toEqual([{ name: 'Brian' }]);
    const own = await query('select', { table: 'author', columns: ['name'], where: { owner_id: 'X-Service-User-Id' } }, asUser('1'));
    expect(own.json).toEqual([{ name: 'Ada' }]);
    const missing = await query('select', { table: 'author', columns: ['name'], where: { owner_id: 'X-Service-Team-Id' } }, asUser('1'));
    expect(missing.json).toMatchObject({ path: '$.args', code: 'not-found' });
  });

  it('orders by the string forms, with limit and offset', async () => {
    const result = await query('select', { table: 'author', columns: ['id'], order_by: ['-id'], limit: 1, offset: 1 });
    expect(result.json).toEqual([{ id: 1 }]);
  });

  it('orders through object relationships, and names a relationship by its alias', async () => {
    const result = await query('select', { table: 'article', columns: ['id', { name: 'author', alias: 'writer', columns: ['name'] }], order_by: { column: 'author.name', type: 'desc' } });
    expect(result.json).toEqual([{ id: 2, writer: { name: 'Brian' } }, { id: 1, writer: { name: 'Ada' } }]);
    const hidden = await query('select', { table: 'article', columns: ['id'], order_by: '-author.updated_by' }, asUser('1'));
    expect(hidden.json).toMatchObject({ path: '$.args.order_by', code: 'permission-denied' });
    const array = await query('select', { table: 'author', columns: ['id'], order_by: 'articles.id' });
    expect(array.json).toMatchObject({ path: '$.args.order_by', code: 'not-exists' });
  });

  it('shows a role only the rows and columns its permission allows', async () => {
    const articles = await query('select', { table: 'article', columns: ['id', 'title'] }, asUser('1'));
    expect(articles.json).toEqual([{ id: 1, title: 'Engines' }]);
    const related = await query('select', { table: 'author', columns: ['id', { name: 'articles', columns: ['id'] }], order_by: 'id' }, asUser('2'));
    expect(related.json).toEqual([{ id: 1, articles: [] }, { id: 2, articles: [{ id: 2 }] }]);
    const star = await query('select', { table: 'author', columns: ['*'], where: { id: { _eq: 1 } } }, asUser('1'));
    expect(Object.keys(star.json[0])).not.toContain('updated_by');
  });

  it("applies the permission's limit and its session-variable filter", async () => {
    await fixture().db.sql(`insert into author (name, owner_id) values ('Cleo', '3')`);
    const result = await query('select', { table: 'author', columns: ['name'], order_by: 'id', limit: 10 }, asReader('1'));
    expect(result.json).toEqual([{ name: 'Brian' }]);
    const counted = await query('count', { table: 'author' }, asReader('1'));
    expect(counted.json).toEqual({ count: 2 });
  });

  it('refuses a column outside the role\'s permission, with Hasura\'s code and path', async () => {
    const result = await query('select', { table: 'author', columns: ['id', 'updated_by'] }, asUser('1'));
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ path: '$.args.columns[1]', error: 'role "user" does not have permission to select column "updated_by"', code: 'permission-denied' });
    const where = await query('select', { table: 'author', columns: ['id'], where: { updated_by: { _eq: '1' } } }, asUser('1'));
    expect(where.json.code).toBe('validation-failed');
    expect(where.json.path).toBe('$.args.where.updated_by');
    const order = await query('select', { table: 'author', columns: ['id'], order_by: '-updated_by' }, asUser('1'));
    expect(order.json).toMatchObject({ path: '$.args.order_by', code: 'permission-denied' });
  });

  it('refuses a table the role may not read', async () => {
    const result = await query('select', { table: 'audit', columns: ['id'] }, asUser('1'));
    expect(result.json).toEqual({ path: '$.args', error: 'select on "audit" for role "user" is not allowed. ', code: 'permission-denied' });
  });

  it('refuses an unknown table, an unknown column, a malformed where and wrong types', async () => {
    expect((await query('select', { table: 'nothing', columns: ['id'] })).json).toEqual({ path: '$.args.table', error: 'table "nothing" does not exist', code: 'not-exists' });
    expect((await query('select', { table: 'author', columns: ['nope'] })).json).toEqual({ path: '$.args.columns[0]', error: 'no such column exists : "nope"', code: 'permission-denied' });
    const where = await query('select', { table: 'author', columns: ['id'], where: { id: { _like: 3 } } });
    expect(where.json).toMatchObject({ path: '$.args.where.id._like', code: 'validation-failed' });
    const notObject = await query('select', { table: 'author', columns: ['id'], where: { _and: 3 } });
    expect(notObject.json).toMatchObject({ path: '$.args.where._and', code: 'validation-failed' });
    const limit = await query('select', { table: 'author', columns: ['id'], limit: -1 });
    expect(limit.json).toEqual({ path: '$.args.limit', error: 'unexpected negative value', code: 'not-supported' });
    const offset = await query('select', { table: 'author', columns: ['id', { name: 'articles', columns: ['id'], offset: -2 }] });
    expect(offset.json).toMatchObject({ path: '$.args.columns[1].offset', code: 'not-supported' });
    const text = await query('select', { table: 'author', columns: ['id'], limit: '3' });
    expect(text.json).toMatchObject({ path: '$.args.limit', code: 'parse-failed' });
    const value = await query('select', { table: 'author', columns: ['id'], where: { id: { _eq: 'x' } } });
    expect(value.json).toMatchObject({ path: '$.args', code: 'data-exception' });
    expect((await query('select', { table: 'author' })).json).toMatchObject({ path: '$.args', code: 'parse-failed' });
  });
});

describe('count', () => {
  it('counts the rows matching where, and distinct values', async () => {
    await fixture().db.sql(`insert into article (author_id, title) values (1, 'Gears')`);
    expect((await query('count', { table: 'article' })).json).toEqual({ count: 3 });
    expect((await query('count', { table: 'article', where: { author_id: { _eq: 1 } } })).json).toEqual({ count: 2 });
    expect((await query('count', { table: 'article', distinct: ['author_id'] })).json).toEqual({ count: 2 });
  });

  it("counts only the rows the role may read, and refuses columns outside its permission", async () => {
    expect((await query('count', { table: 'article' }, asUser('2'))).json).toEqual({ count: 1 });
    const refused = await query('count', { table: 'author', distinct: ['updated_by'] }, asUser('2'));
    expect(refused.json).toMatchObject({ path: '$.args.distinct[0]', code: 'permission-denied' });
    expect((await query('count', { table: 'audit' }, asUser('2'))).json.code).toBe('permission-denied');
  });
});

const authors = () => fixture().rows('select id, name, owner_id, rating, updated_by from author order by id');

describe('insert', () => {
  it('inserts objects for the admin, defaults for missing columns, and returns what was asked', async () => {
    const result = await query('insert', { table: 'author', objects: [{ name: 'Cleo', rating: 7 }, { name: 'Dan', email: 'dan@example.com' }], returning: ['id', 'name', 'rating'] });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ affected_rows: 2, returning: [{ id: 3, name: 'Cleo', rating: 7 }, { id: 4, name: 'Dan', rating: null }] });
    expect((await query('insert', { table: 'article', objects: [{ author_id: 3, title: 'Wheels' }] })).json).toEqual({ affected_rows: 1 });
  });

  it("sets the role's presets whatever it sends, and refuses rows failing its check", async () => {
    const result = await query('insert', { table: 'author', objects: [{ name: 'Cleo', rating: 2 }], returning: ['id', 'owner_id'] }, asUser('7'));
    expect(result.json).toEqual({ affected_rows: 1, returning: [{ id: 3, owner_id: '7' }] });
    const failing = await query('insert', { table: 'author', objects: [{ name: 'Dan', rating: 1 }, { name: 'Eve', rating: 9 }] }, asUser('7'));
    expect(failing.json).toEqual({ path: '$.args', error: 'Check constraint violation. insert/update check constraint failed', code: 'permission-error' });
    const through = await query('insert', { table: 'article', objects: [{ author_id: 2, title: 'Not mine' }] }, asUser('1'));
    expect(through.json.code).toBe('permission-error');
    expect((await authors()).map((row) => row.name)).toEqual(['Ada', 'Brian', 'Cleo']);
  });

  it("refuses columns outside the role's insert permission, unknown tables, and bad values", async () => {
    const preset = await query('insert', { table: 'author', objects: [{ name: 'Cleo', owner_id: '1' }] }, asUser('7'));
    expect(preset.json).toEqual({ path: '$.args.objects[0]', error: 'column "owner_id" is not insertable for role "user"', code: 'not-supported' });
    const hidden = await query('insert', { table: 'author', objects: [{ name: 'Cleo' }, { name: 'Dan', updated_by: '1' }] }, asUser('7'));
    expect(hidden.json).toEqual({ path: '$.args.objects[1]', error: 'role "user" does not have permission to insert column "updated_by"', code: 'permission-denied' });
    expect((await query('insert', { table: 'audit', objects: [{ op: 'x' }] }, asUser('7'))).json).toMatchObject({ path: '$.args', code: 'permission-denied' });
    expect((await query('insert', { table: 'nothing', objects: [] })).json).toMatchObject({ path: '$.args.table', code: 'not-exists' });
    expect((await query('insert', { table: 'author', objects: [{ nope: 1 }] })).json).toEqual({ path: '$.args.objects[0]', error: 'column "nope" does not exist', code: 'not-exists' });
    expect((await query('insert', { table: 'author', objects: [] })).json).toEqual({ path: '$.args.objects', error: 'objects should not be empty', code: 'unexpected-payload' });
    expect((await query('insert', { table: 'author', objects: [{ name: 'X', rating: 'high' }] })).json).toMatchObject({ path: '$.args', code: 'data-exception' });
    expect((await query('insert', { table: 'author', objects: [{ name: 'X', email: 'ada@example.com' }] })).json).toMatchObject({ path: '$.args', code: 'constraint-violation' });
    expect((await query('insert', { table: 'author', objects: {} })).json).toMatchObject({ path: '$.args.objects', code: 'parse-failed' });
  });

  it('upserts with on_conflict, within the role\'s update permission', async () => {
    const ignored = await query('insert', { table: 'author', objects: [{ name: 'Ada again', email: 'ada@example.com' }], on_conflict: { action: 'ignore' } });
    expect(ignored.json).toEqual({ affected_rows: 0 });
    const updated = await query('insert', { table: 'author', objects: [{ name: 'Ada L.', email: 'ada@example.com' }], on_conflict: { action: 'update', constraint: 'author_email_key' }, returning: ['id', 'name'] });
    expect(updated.json).toEqual({ affected_rows: 1, returning: [{ id: 1, name: 'Ada L.' }] });
    const notOwn = await query('insert', { table: 'author', objects: [{ name: 'Brian B.', email: 'brian@example.com', rating: 1 }], on_conflict: { action: 'update', constraint_on: ['email'] } }, asUser('1'));
    expect(notOwn.json).toEqual({ affected_rows: 0 });
    expect((await authors())[1]!.name).toBe('Brian');
    const own = await query('insert', { table: 'author', objects: [{ name: 'Ada U.', email: 'ada@example.com', rating: 2 }], on_conflict: { action: 'update', constraint: 'author_email_key' } }, asUser('1'));
    expect(own.json).toEqual({ affected_rows: 1 });
    expect((await authors())[0]).toEqual({ id: 1, name: 'Ada U.', owner_id: '1', rating: 2, updated_by: '1' });
    const overRated = await query('insert', { table: 'author', objects: [{ name: 'Ada', email: 'ada@example.com', rating: 8 }], on_conflict: { action: 'update', constraint: 'author_email_key' } }, asUser('1'));
    expect(overRated.json).toMatchObject({ path: '$.args', code: 'permission-error' });
    expect((await authors())[0]!.rating).toBe(2);
    // A column the role may not write names no target: answered as missing, as an unknown one is.
    const hidden = await query('insert', { table: 'author', objects: [{ name: 'X', email: 'x@example.com' }], on_conflict: { action: 'ignore', constraint_on: ['updated_by'] } }, asUser('1'));
    const missing = await query('insert', { table: 'author', objects: [{ name: 'X', email: 'x@example.com' }], on_conflict: { action: 'ignore', constraint_on: ['no_such'] } }, asUser('1'));
    expect(hidden.json).toEqual({ path: '$.args.on_conflict.constraint_on[0]', error: 'column "updated_by" does not exist', code: 'not-exists' });
    expect(missing.json.code).toBe('not-exists');
    const untargeted = await query('insert', { table: 'author', objects: [{ name: 'X' }], on_conflict: { action: 'update' } });
    expect(untargeted.json).toMatchObject({ path: '$.args.on_conflict', code: 'unexpected-payload' });
    const unknown = await query('insert', { table: 'author', objects: [{ name: 'X' }], on_conflict: { action: 'ignore', constraint: 'nope' } });
    expect(unknown.json).toEqual({ path: '$.args.on_conflict.constraint', error: 'constraint "nope" for table "author" does not exist', code: 'unexpected' });
  });
});

describe('update', () => {
  it('applies $set, $inc, $mul and $default to the rows matching where', async () => {
    const result = await query('update', { table: 'author', where: { id: { _eq: 1 } }, $set: { name: 'Ada L.' }, $inc: { rating: 2 }, returning: ['name', 'rating'] });
    expect(result.json).toEqual({ affected_rows: 1, returning: [{ name: 'Ada L.', rating: 5 }] });
    expect((await query('update', { table: 'author', where: {}, $mul: { rating: 2 } })).json).toEqual({ affected_rows: 2 });
    expect((await query('update', { table: 'author', where: { id: { _eq: 2 } }, $default: ['email'] })).json).toEqual({ affected_rows: 1 });
    expect(await fixture().rows('select rating, email from author order by id')).toEqual([{ rating: 10, email: 'ada@example.com' }, { rating: 8, email: null }]);
  });

  it("changes only the role's own rows, sets its presets, and refuses rows failing its check", async () => {
    const result = await query('update', { table: 'author', where: {}, $set: { name: 'Mine' } }, asUser('2'));
    expect(result.json).toEqual({ affected_rows: 1 });
    expect(await authors()).toEqual([
      { id: 1, name: 'Ada', owner_id: '1', rating: 3, updated_by: null },
      { id: 2, name: 'Mine', owner_id: '2', rating: 4, updated_by: '2' },
    ]);
    const failing = await query('update', { table: 'author', where: { id: { _eq: 2 } }, $inc: { rating: 5 } }, asUser('2'));
    expect(failing.json).toMatchObject({ path: '$.args', code: 'permission-error' });
    expect((await authors())[1]!.rating).toBe(4);
  });

  it('refuses a missing where, columns outside the permission or preset by it, and no operator', async () => {
    expect((await query('update', { table: 'author', $set: { name: 'X' } })).json).toEqual({ path: '$.args', error: 'key "where" not found', code: 'parse-failed' });
    expect((await query('update', { table: 'author', where: {}, $set: { email: 'x@example.com' } }, asUser('1'))).json).toEqual({
      path: "$.args['$set']", error: 'role "user" does not have permission to update column "email"', code: 'permission-denied',
    });
    expect((await query('update', { table: 'author', where: {}, $inc: { updated_by: 1 } }, asUser('1'))).json).toEqual({
      path: "$.args['$inc']", error: 'column "updated_by" is not updatable for role "user"; its value is predefined in permission', code: 'not-supported',
    });
    expect((await query('update', { table: 'author', where: {} })).json).toEqual({ path: '$.args', error: 'atleast one of $set, $inc, $mul has to be present', code: 'unexpected-payload' });
    expect((await query('update', { table: 'article', where: {}, $set: { title: 'X' } }, asReader('1'))).json).toMatchObject({ path: '$.args', code: 'permission-denied' });
    expect((await query('update', { table: 'author', where: { nope: {} }, $set: { name: 'X' } })).json).toMatchObject({ path: '$.args.where.nope', code: 'validation-failed' });
  });
});

describe('delete', () => {
  it('deletes the rows matching where and returns them', async () => {
    const result = await query('delete', { table: 'article', where: { title: { _eq: 'Pipes' } }, returning: ['id'] });
    expect(result.json).toEqual({ affected_rows: 1, returning: [{ id: 2 }] });
  });

  it("deletes only what the role's delete permission allows", async () => {
    await fixture().db.sql('delete from article');
    expect((await query('delete', { table: 'author', where: {} }, asUser('1'))).json).toEqual({ affected_rows: 1 });
    expect((await authors()).map((row) => row.id)).toEqual([2]);
    expect((await query('delete', { table: 'article', where: {} }, asUser('1'))).json).toEqual({ path: '$.args', error: 'delete on "article" for role "user" is not allowed. ', code: 'permission-denied' });
  });

  it('refuses a missing where', async () => {
    expect((await query('delete', { table: 'author' })).json).toEqual({ path: '$.args', error: 'key "where" not found', code: 'parse-failed' });
  });
});

describe('writes of a role without select permission', () => {
  it('inserts without returning, and refuses returning, where and so update and delete, saying why', async () => {
    expect((await query('insert', { table: 'author', objects: [{ name: 'Cleo' }] }, asBlind)).json).toEqual({ affected_rows: 1 });
    expect((await query('insert', { table: 'author', objects: [{ name: 'Dan' }], returning: ['id'] }, asBlind)).json).toEqual({
      path: '$.args', code: 'permission-denied',
      error: 'select on "author" for role "blind" is not allowed. ; "returning" can only be used if the role has "select" permission on the table',
    });
    expect((await query('update', { table: 'author', where: {}, $set: { name: 'X' } }, asBlind)).json).toEqual({
      path: '$.args', code: 'permission-denied',
      error: 'select on "author" for role "blind" is not allowed. ; "update" is only allowed if the role has "select" permission as "where" can\'t be used without "select" permission on the table',
    });
    expect((await query('delete', { table: 'author', where: {} }, asBlind)).json).toMatchObject({ path: '$.args', code: 'permission-denied' });
    expect((await authors()).map((row) => row.name)).toEqual(['Ada', 'Brian', 'Cleo']);
  });
});

describe('bulk of data operations', () => {
  it('runs them in order, each seeing what the one before wrote', async () => {
    const result = await fixture().engine.query({ type: 'bulk', args: [
      { type: 'insert', args: { table: 'author', objects: [{ name: 'Cleo', rating: 1 }] } },
      { type: 'update', args: { table: 'author', where: { name: { _eq: 'Cleo' } }, $inc: { rating: 1 } } },
      { type: 'select', args: { table: 'author', columns: ['name', 'rating'], where: { name: { _eq: 'Cleo' } } } },
      { type: 'count', args: { table: 'author' } },
    ] }, asUser('9'));
    expect(result.json).toEqual([{ affected_rows: 1 }, { affected_rows: 1 }, [{ name: 'Cleo', rating: 2 }], { count: 3 }]);
  });

  it('writes nothing when one of them fails, and says which', async () => {
    const result = await fixture().engine.query({ type: 'bulk', args: [
      { type: 'insert', args: { table: 'author', objects: [{ name: 'Cleo', rating: 1 }] } },
      { type: 'delete', args: { table: 'article', where: {} } },
    ] }, asUser('9'));
    expect(result.json).toMatchObject({ path: '$.args[1].args', code: 'permission-denied' });
    expect((await authors()).length).toBe(2);
  });

  it("lets the admin mix metadata and data operations, each seeing the ones before", async () => {
    const result = await fixture().engine.query({ type: 'bulk', args: [
      { type: 'run_sql', args: { sql: 'create table note (id serial primary key, body text)' } },
      { type: 'track_table', args: { name: 'note' } },
      { type: 'insert', args: { table: 'note', objects: [{ body: 'hello' }], returning: ['id', 'body'] } },
      { type: 'select', args: { table: 'note', columns: ['body'] } },
      { type: 'untrack_table', args: { table: 'note' } },
      { type: 'run_sql', args: { sql: 'drop table note' } },
    ] });
    expect(result.json).toEqual([
      { result_type: 'CommandOk', result: null }, { message: 'success' },
      { affected_rows: 1, returning: [{ id: 1, body: 'hello' }] }, [{ body: 'hello' }],
      { message: 'success' }, { result_type: 'CommandOk', result: null },
    ]);
  });

  it('still refuses metadata operations to a role, inside a bulk too', async () => {
    const result = await fixture().engine.query({ type: 'bulk', args: [
      { type: 'select', args: { table: 'author', columns: ['id'] } },
      { type: 'untrack_table', args: { table: 'author' } },
    ] }, asUser('9'));
    expect(result.json).toEqual({ path: '$.args', error: 'restricted access : admin only', code: 'access-denied' });
  });
});

describe('alongside metadata operations', () => {
  it('is not queued behind a metadata operation under way, as GraphQL is not', async () => {
    const slow = query('run_sql', { sql: 'select pg_sleep(1.5)', read_only: true });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    expect((await query('count', { table: 'author' }, asUser('1'))).json).toEqual({ count: 2 });
    expect((await query('update', { table: 'author', where: { id: { _eq: 1 } }, $set: { name: 'Ada' } }, asUser('1'))).json).toEqual({ affected_rows: 1 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await slow).status).toBe(200);
  });
});

describe('names', () => {
  it('names columns as SQL does in where, as Hasura\'s DML does, whatever their GraphQL names', async () => {
    const setup = await query('bulk', [
      { type: 'run_sql', args: { sql: "create table cust (id integer primary key, real_name text not null, secret text); insert into cust values (1, 'r', 's'), (2, 'q', 't')" } },
      { type: 'track_table', version: 2, args: { table: 'cust', configuration: { custom_column_names: { real_name: 'nice' } } } },
      { type: 'create_select_permission', args: { table: 'cust', role: 'reader', permission: { columns: ['id', 'real_name'], filter: {} } } },
    ]);
    expect(setup.status).toBe(200);
    const reader = asReader('1');
    expect((await query('select', { table: 'cust', columns: ['id'], where: { real_name: 'r' } }, reader)).json).toEqual([{ id: 1 }]);
    expect((await query('count', { table: 'cust', where: { real_name: { _eq: 'q' } } }, reader)).json).toEqual({ count: 1 });
    expect((await query('select', { table: 'cust', columns: ['id'], where: { nice: 'r' } }, reader)).status).toBe(400);
    // Still only the role's columns.
    expect((await query('select', { table: 'cust', columns: ['id'], where: { secret: 's' } }, reader)).status).toBe(400);
  });
});
