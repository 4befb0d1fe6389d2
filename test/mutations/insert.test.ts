import { describe, expect, it } from 'vitest';
import { admin, asUser, useMutationFixture } from './fixture.js';

const fixture = useMutationFixture();

const gql = (query: string, headers?: Record<string, string>, variables?: Record<string, unknown>) => fixture().gql(query, headers, variables);
const authors = () => fixture().rows('select id, name, email, owner_id, rating from author order by id');
const articles = () => fixture().rows('select id, author_id, title from article order by id');
const error = (code: string, path: string, message?: string) => ({
  errors: [expect.objectContaining({ extensions: expect.objectContaining({ code, path }), ...(message === undefined ? {} : { message }) })],
});

describe('insert_<t> as admin', () => {
  it('inserts several rows, a missing column taking its default, and returns them', async () => {
    const result = await gql('mutation { insert_author(objects: [{name: "Cleo"}, {name: "Dan", email: "dan@example.com", rating: 7}]) { affected_rows returning { id name email rating } } }');
    expect(result.json).toEqual({
      data: { insert_author: { affected_rows: 2, returning: [{ id: 3, name: 'Cleo', email: null, rating: null }, { id: 4, name: 'Dan', email: 'dan@example.com', rating: 7 }] } },
    });
    expect((await authors()).slice(2)).toEqual([
      { id: 3, name: 'Cleo', email: null, owner_id: null, rating: null },
      { id: 4, name: 'Dan', email: 'dan@example.com', owner_id: null, rating: 7 },
    ]);
  });

  it('inserts one row from variables with insert_<t>_one', async () => {
    const result = await gql('mutation ($a: author_insert_input!) { insert_author_one(object: $a) { id name meta } }', admin, { a: { name: 'Eve', meta: { x: [1, 2] } } });
    expect(result.json).toEqual({ data: { insert_author_one: { id: 3, name: 'Eve', meta: { x: [1, 2] } } } });
    expect(await fixture().rows('select meta from author where id = 3')).toEqual([{ meta: '{"x": [1, 2]}' }]);
  });

  it('inserts through an array relationship, filling in the foreign key', async () => {
    const result = await gql('mutation { insert_author_one(object: {name: "Fay", articles: {data: [{title: "One"}, {title: "Two"}]}}) { id articles(order_by: {id: asc}) { title author { name } } } }');
    expect(result.json).toEqual({ data: { insert_author_one: { id: 3, articles: [{ title: 'One', author: { name: 'Fay' } }, { title: 'Two', author: { name: 'Fay' } }] } } });
    expect((await articles()).slice(2)).toEqual([{ id: 3, author_id: 3, title: 'One' }, { id: 4, author_id: 3, title: 'Two' }]);
  });

  it('inserts through an object relationship, writing the related row first', async () => {
    const result = await gql('mutation { insert_article(objects: [{title: "A", author: {data: {name: "Gus"}}}, {title: "B", author_id: 1}]) { affected_rows returning { title author { name } } } }');
    expect(result.json).toEqual({ data: { insert_article: { affected_rows: 3, returning: [{ title: 'A', author: { name: 'Gus' } }, { title: 'B', author: { name: 'Ada' } }] } } });
    expect((await articles()).slice(2)).toEqual([{ id: 3, author_id: 3, title: 'A' }, { id: 4, author_id: 1, title: 'B' }]);
  });

  it('upserts with on_conflict: update_columns are overwritten, an empty list does nothing', async () => {
    const updated = await gql('mutation { insert_author_one(object: {id: 1, name: "Ada L.", email: "x@example.com"}, on_conflict: {constraint: author_pkey, update_columns: [name]}) { id name email } }');
    expect(updated.json).toEqual({ data: { insert_author_one: { id: 1, name: 'Ada L.', email: 'ada@example.com' } } });
    const ignored = await gql('mutation { insert_author(objects: [{id: 2, name: "B."}], on_conflict: {constraint: author_pkey, update_columns: []}) { affected_rows } }');
    expect(ignored.json).toEqual({ data: { insert_author: { affected_rows: 0 } } });
    const guarded = await gql('mutation { insert_author(objects: [{id: 2, name: "B."}], on_conflict: {constraint: author_pkey, update_columns: [name], where: {rating: {_gt: 4}}}) { affected_rows } }');
    expect(guarded.json).toEqual({ data: { insert_author: { affected_rows: 0 } } });
    expect((await authors()).map((row) => row.name)).toEqual(['Ada L.', 'Brian']);
  });
});

describe('insert_<t> as a role with an insert permission', () => {
  it('sets the preset column from the session, whatever the client sends', async () => {
    const result = await gql('mutation { insert_author_one(object: {name: "Hal", rating: 2}) { id owner_id } }', asUser('7'));
    expect(result.json).toEqual({ data: { insert_author_one: { id: 3, owner_id: '7' } } });
    const smuggled = await gql('mutation { insert_author_one(object: {name: "Hal", owner_id: "1"}) { id } }', asUser('7'));
    expect(smuggled.json).toEqual(error('validation-failed', '$.selectionSet.insert_author_one.args.object.owner_id', "field 'owner_id' not found in type: 'author_insert_input'"));
    expect((await authors()).slice(2)).toEqual([{ id: 3, name: 'Hal', email: null, owner_id: '7', rating: 2 }]);
  });

  it('cannot set a column outside the permission, even through a variable', async () => {
    const result = await gql('mutation ($a: author_insert_input!) { insert_author_one(object: $a) { id } }', asUser('7'), { a: { name: 'Ivy', updated_by: 'me' } });
    expect(result.json.errors[0].extensions.code).toBe('validation-failed');
    expect(await authors()).toHaveLength(2);
  });

  it('answers permission-error and writes nothing when the check fails on the row as written', async () => {
    const result = await gql('mutation { insert_author(objects: [{name: "Jo", rating: 1}, {name: "Kim", rating: 9}]) { affected_rows } }', asUser('7'));
    expect(result.json).toEqual(error('permission-error', '$.selectionSet.insert_author.args.objects', 'check constraint of an insert/update permission has failed'));
    expect(await authors()).toHaveLength(2);
  });

  it('evaluates a check through a relationship: only articles of own authors', async () => {
    const denied = await gql('mutation { insert_article_one(object: {author_id: 2, title: "Not mine"}) { id } }', asUser('1'));
    expect(denied.json).toEqual(error('permission-error', '$.selectionSet.insert_article_one.args.object'));
    const allowed = await gql('mutation { insert_article_one(object: {author_id: 1, title: "Mine"}) { id title } }', asUser('1'));
    expect(allowed.json).toEqual({ data: { insert_article_one: { id: 4, title: 'Mine' } } });
    expect((await articles()).map((row) => row.title)).toEqual(['Engines', 'Pipes', 'Mine']);
  });

  it('sees the rows of a nested insert when checking: an article with its new author', async () => {
    const result = await gql('mutation { insert_article_one(object: {title: "Fresh", author: {data: {name: "Lu", rating: 1}}}) { title author { name owner_id } } }', asUser('5'));
    expect(result.json).toEqual({ data: { insert_article_one: { title: 'Fresh', author: { name: 'Lu', owner_id: '5' } } } });
    expect((await articles()).slice(2)).toEqual([{ id: 3, author_id: 3, title: 'Fresh' }]);
  });

  it('rolls back every level of a nested insert when one level fails its check', async () => {
    const result = await gql('mutation { insert_article_one(object: {title: "Fresh", author: {data: {name: "Mo", rating: 9}}}) { id } }', asUser('5'));
    expect(result.json).toEqual(error('permission-error', '$.selectionSet.insert_article_one.args.object'));
    expect(await authors()).toHaveLength(2);
    expect(await articles()).toHaveLength(2);
  });

  it('cannot change through on_conflict a column it may not update', async () => {
    const result = await gql('mutation { insert_author_one(object: {name: "X", email: "ada@example.com"}, on_conflict: {constraint: author_email_key, update_columns: [email]}) { id } }', asUser('1'));
    expect(result.json.errors[0].extensions.code).toBe('validation-failed');
    expect(result.json.errors[0].message).toContain('email');
    expect((await authors())[0]).toEqual({ id: 1, name: 'Ada', email: 'ada@example.com', owner_id: '1', rating: 3 });
  });

  it('upserts only rows its update permission allows, setting the update preset', async () => {
    const others = await gql('mutation { insert_author(objects: [{name: "Taken", email: "brian@example.com"}], on_conflict: {constraint: author_email_key, update_columns: [name]}) { affected_rows } }', asUser('1'));
    expect(others.json).toEqual({ data: { insert_author: { affected_rows: 0 } } });
    const mine = await gql('mutation { insert_author(objects: [{name: "Ada 2", email: "ada@example.com"}], on_conflict: {constraint: author_email_key, update_columns: [name]}) { affected_rows } }', asUser('1'));
    expect(mine.json).toEqual({ data: { insert_author: { affected_rows: 1 } } });
    expect(await fixture().rows('select name, updated_by from author order by id')).toEqual([{ name: 'Ada 2', updated_by: '1' }, { name: 'Brian', updated_by: null }]);
  });

  it('has no returning for a table it cannot read and no on_conflict without an update permission', async () => {
    const schema = await gql('{ __type(name: "mutation_root") { fields { name } } }', asUser('1'));
    const names = schema.json.data.__type.fields.map((field: { name: string }) => field.name).sort();
    expect(names).toEqual(['delete_author', 'delete_author_by_pk', 'insert_article', 'insert_article_one', 'insert_author', 'insert_author_one', 'update_article', 'update_article_by_pk', 'update_article_many', 'update_author', 'update_author_by_pk', 'update_author_many']);
  });
});

describe('insert errors', () => {
  it('answers constraint-violation with Hasura messages', async () => {
    const unique = await gql('mutation { insert_author_one(object: {name: "Dup", email: "ada@example.com"}) { id } }');
    expect(unique.json).toEqual(error('constraint-violation', '$.selectionSet.insert_author_one.args.object', 'Uniqueness violation. duplicate key value violates unique constraint "author_email_key"'));
    const foreign = await gql('mutation { insert_article(objects: {author_id: 99, title: "Orphan"}) { affected_rows } }');
    expect(foreign.json).toEqual(error('constraint-violation', '$.selectionSet.insert_article.args.objects', 'Foreign key violation. insert or update on table "article" violates foreign key constraint "article_author_id_fkey"'));
    const notNull = await gql('mutation { insert_article_one(object: {author_id: 1, title: null}) { id } }');
    expect(notNull.json.errors[0].message).toMatch(/^Not-NULL violation\. null value in column "title"/);
    expect(notNull.json.errors[0].extensions.code).toBe('constraint-violation');
    const check = await gql('mutation { insert_author_one(object: {name: "Big", rating: 11}) { id } }');
    expect(check.json).toEqual(error('constraint-violation', '$.selectionSet.insert_author_one.args.object', 'Check constraint violation. new row for relation "author" violates check constraint "author_rating_check"'));
    expect(await authors()).toHaveLength(2);
  });

  it('answers data-exception for a value Postgres cannot read', async () => {
    const result = await gql('mutation { insert_author_one(object: {name: "Bad", born: "not a date"}) { id } }', asUser('1'));
    expect(result.json).toEqual(error('data-exception', '$.selectionSet.insert_author_one.args.object', 'invalid input syntax for type date: "not a date"'));
    expect(result.json.errors[0].extensions.internal).toBeUndefined();
  });
});

describe('mutation transactions', () => {
  it('runs all fields in order in one transaction, rolled back whole by a later failure', async () => {
    const result = await gql(`mutation {
      a: insert_author_one(object: {name: "First"}) { id }
      b: insert_author_one(object: {name: "Second", email: "ada@example.com"}) { id }
    }`);
    expect(result.json).toEqual(error('constraint-violation', '$.selectionSet.insert_author_one.args.object'));
    expect(await authors()).toHaveLength(2);
  });

  it('lets a later field see what an earlier one wrote', async () => {
    const result = await gql(`mutation {
      insert_author_one(object: {id: 10, name: "Nia"}) { id }
      update_author(where: {id: {_eq: 10}}, _set: {name: "Nia B."}) { affected_rows returning { name } }
    }`);
    expect(result.json).toEqual({ data: { insert_author_one: { id: 10 }, update_author: { affected_rows: 1, returning: [{ name: 'Nia B.' }] } } });
  });

  it('sets service.user for triggers, with the session variables in lower case', async () => {
    await gql('mutation { insert_article_one(object: {author_id: 1, title: "Audited"}) { id } }', { ...asUser('1'), 'X-Service-Extra': 'Yes' });
    await gql('mutation { delete_article(where: {title: {_eq: "Audited"}}) { affected_rows } }');
    const audit = await fixture().rows('select op, who from audit order by id');
    expect(audit.map((row) => ({ op: row.op, who: JSON.parse(row.who as string) }))).toEqual([
      { op: 'INSERT', who: { 'x-service-role': 'user', 'x-service-user-id': '1', 'x-service-extra': 'Yes' } },
      { op: 'DELETE', who: { 'x-service-role': 'admin' } },
    ]);
  });
});
