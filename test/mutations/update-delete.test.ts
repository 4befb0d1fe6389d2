import { describe, expect, it } from 'vitest';
import { asUser, useMutationFixture } from './fixture.js';

const fixture = useMutationFixture();

const gql = (query: string, headers?: Record<string, string>, variables?: Record<string, unknown>) => fixture().gql(query, headers, variables);
const authors = () => fixture().rows('select id, name, rating, updated_by from author order by id');

describe('update_<t> as admin', () => {
  it('applies _set and _inc to the rows matching where, and returns them', async () => {
    const result = await gql('mutation { update_author(where: {name: {_eq: "Ada"}}, _set: {name: "Ada L."}, _inc: {rating: 2}) { affected_rows returning { id name rating } } }');
    expect(result.json).toEqual({ data: { update_author: { affected_rows: 1, returning: [{ id: 1, name: 'Ada L.', rating: 5 }] } } });
    expect(await authors()).toEqual([{ id: 1, name: 'Ada L.', rating: 5, updated_by: null }, { id: 2, name: 'Brian', rating: 4, updated_by: null }]);
  });

  it('applies the jsonb operators', async () => {
    const meta = async (query: string) => {
      const result = await gql(`mutation { update_author_by_pk(pk_columns: {id: 1}, ${query}) { meta } }`);
      expect(result.json.errors).toBeUndefined();
      return result.json.data.update_author_by_pk.meta;
    };
    expect(await meta('_append: {meta: {level: 2}}')).toEqual({ lang: 'en', tags: ['a', 'b'], level: 2 });
    expect(await meta('_prepend: {meta: {lang: "fr", first: true}}')).toEqual({ lang: 'en', tags: ['a', 'b'], level: 2, first: true });
    expect(await meta('_delete_key: {meta: "first"}')).toEqual({ lang: 'en', tags: ['a', 'b'], level: 2 });
    expect(await meta('_delete_at_path: {meta: ["tags", "0"]}')).toEqual({ lang: 'en', tags: ['b'], level: 2 });
    expect(await fixture().rows('select meta from author where id = 1')).toEqual([{ meta: '{"lang": "en", "tags": ["b"], "level": 2}' }]);
    const list = await gql('mutation { update_author_by_pk(pk_columns: {id: 2}, _set: {meta: [1, 2, 3]}) { id } a: update_author_by_pk(pk_columns: {id: 2}, _delete_elem: {meta: 0}) { meta } }');
    expect(list.json).toEqual({ data: { update_author_by_pk: { id: 2 }, a: { meta: [2, 3] } } });
  });

  it('answers null from update_<t>_by_pk when no row has the key', async () => {
    const result = await gql('mutation { update_author_by_pk(pk_columns: {id: 99}, _set: {name: "Nobody"}) { id } }');
    expect(result.json).toEqual({ data: { update_author_by_pk: null } });
  });

  it('runs the updates of update_<t>_many in order, each seeing the one before', async () => {
    const result = await gql(`mutation { update_author_many(updates: [
      {where: {id: {_eq: 1}}, _set: {rating: 1}},
      {where: {rating: {_eq: 1}}, _inc: {rating: 5}}
    ]) { affected_rows returning { id rating } } }`);
    expect(result.json).toEqual({ data: { update_author_many: [{ affected_rows: 1, returning: [{ id: 1, rating: 1 }] }, { affected_rows: 1, returning: [{ id: 1, rating: 6 }] }] } });
    expect((await authors())[0]!.rating).toBe(6);
  });

  it('refuses a column named by two operators', async () => {
    const result = await gql('mutation { update_author(where: {}, _set: {rating: 1}, _inc: {rating: 1}) { affected_rows } }');
    expect(result.json.errors[0].extensions).toEqual({ path: '$.selectionSet.update_author.args', code: 'validation-failed' });
  });
});

describe('update_<t> as a role with an update permission', () => {
  it('updates only the rows its filter allows and sets the preset', async () => {
    const result = await gql('mutation { update_author(where: {}, _set: {name: "Mine"}) { affected_rows returning { id name } } }', asUser('1'));
    expect(result.json).toEqual({ data: { update_author: { affected_rows: 1, returning: [{ id: 1, name: 'Mine' }] } } });
    expect(await authors()).toEqual([{ id: 1, name: 'Mine', rating: 3, updated_by: '1' }, { id: 2, name: 'Brian', rating: 4, updated_by: null }]);
  });

  it('cannot update a row outside its filter by primary key', async () => {
    const result = await gql('mutation { update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Stolen"}) { id } }', asUser('1'));
    expect(result.json).toEqual({ data: { update_author_by_pk: null } });
    expect((await authors())[1]!.name).toBe('Brian');
  });

  it('answers permission-error and changes nothing when the check fails on the updated row', async () => {
    const result = await gql('mutation { update_author(where: {id: {_eq: 1}}, _inc: {rating: 5}) { affected_rows } }', asUser('1'));
    expect(result.json).toEqual({
      errors: [{ message: 'check constraint of an insert/update permission has failed', extensions: { path: '$.selectionSet.update_author.args', code: 'permission-error' } }],
    });
    expect((await authors())[0]).toEqual({ id: 1, name: 'Ada', rating: 3, updated_by: null });
  });

  it('cannot set a column outside its permission', async () => {
    const result = await gql('mutation { update_author(where: {}, _set: {email: "x@example.com"}) { affected_rows } }', asUser('1'));
    expect(result.json.errors[0]).toEqual({ message: "field 'email' not found in type: 'author_set_input'", extensions: { path: '$.selectionSet.update_author.args._set.email', code: 'validation-failed' } });
    expect(await fixture().rows('select email from author order by id')).toEqual([{ email: 'ada@example.com' }, { email: 'brian@example.com' }]);
  });

  it('returns only rows its select permission shows', async () => {
    const result = await gql('mutation { update_article(where: {}, _set: {is_published: true}) { affected_rows returning { title author { name } } } }', asUser('1'));
    expect(result.json).toEqual({ data: { update_article: { affected_rows: 1, returning: [{ title: 'Engines', author: { name: 'Ada' } }] } } });
    expect(await fixture().rows('select title, is_published from article order by id')).toEqual([{ title: 'Engines', is_published: true }, { title: 'Pipes', is_published: false }]);
  });
});

describe('delete_<t>', () => {
  it('deletes the rows matching where as admin and returns them as they were', async () => {
    const result = await gql('mutation { delete_article(where: {title: {_like: "P%"}}) { affected_rows returning { id title author { name } } } }');
    expect(result.json).toEqual({ data: { delete_article: { affected_rows: 1, returning: [{ id: 2, title: 'Pipes', author: { name: 'Brian' } }] } } });
    expect(await fixture().rows('select id from article')).toEqual([{ id: 1 }]);
  });

  it('deletes by primary key, answering null when there is no such row', async () => {
    const result = await gql('mutation { delete_article_by_pk(id: 1) { title } again: delete_article_by_pk(id: 1) { title } }');
    expect(result.json).toEqual({ data: { delete_article_by_pk: { title: 'Engines' }, again: null } });
  });

  it('deletes only the rows the role\'s filter allows', async () => {
    await fixture().db.sql("insert into author (name, owner_id) values ('Spare', '9'), ('Other', '8')");
    const result = await gql('mutation { delete_author(where: {}) { affected_rows returning { name } } }', asUser('9'));
    expect(result.json).toEqual({ data: { delete_author: { affected_rows: 1, returning: [{ name: 'Spare' }] } } });
    expect((await authors()).map((row) => row.name)).toEqual(['Ada', 'Brian', 'Other']);
  });

  it('answers constraint-violation for a row still referenced, and rolls back', async () => {
    const result = await gql('mutation { delete_author_by_pk(id: 1) { id } }', asUser('1'));
    expect(result.json.errors[0].message).toMatch(/^Foreign key violation\. update or delete on table "author" violates foreign key constraint/);
    expect(result.json.errors[0].extensions).toEqual({ path: '$.selectionSet.delete_author_by_pk.args', code: 'constraint-violation' });
    expect(await authors()).toHaveLength(2);
  });

  it('is absent for a role without a delete permission', async () => {
    const result = await gql('mutation { delete_article(where: {}) { affected_rows } }', asUser('1'));
    expect(result.json.errors[0]).toEqual({ message: "field 'delete_article' not found in type: 'mutation_root'", extensions: { path: '$.selectionSet.delete_article', code: 'validation-failed' } });
    expect(await fixture().rows('select count(*)::int as n from article')).toEqual([{ n: 2 }]);
  });
});
