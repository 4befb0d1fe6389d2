import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, asUser, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/**
 * Computed fields in boolean expressions and aggregates (compat-facts 6.2): scalar and
 * table computed fields without arguments in select, insert and delete permission
 * filters and in `where`; scalar ones in `<t>_aggregate { aggregate { sum {...} } }`.
 * Authors: Ada (1, name length 3), Brian (2, 5), Cleo (3, 4). Published articles: 10
 * (Ada, 4.5), 12 and 14 (Brian, 4.0 and 2.0); unpublished: 11 (Ada), 13 (Cleo).
 */
let fx: FunctionsFixture;
const as = (role: string) => ({ ...admin, 'x-service-role': role });

beforeAll(async () => {
  fx = await startFunctionsFixture();
  const setup = await fx.query({
    type: 'bulk',
    args: [
      {
        type: 'run_sql',
        args: {
          sql: `create function author_published(a author) returns setof article language sql stable as $$ select * from article where author_id = a.id and is_published $$;
                create function author_all_articles(a author) returns setof article language sql stable as $$ select * from article where author_id = a.id $$;
                create function note_body_length(n note) returns integer language sql immutable as $$ select length(n.body) $$;`,
        },
      },
      { type: 'add_computed_field', args: { table: 'author', name: 'name_length', definition: { function: 'author_name_length' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'label', definition: { function: 'author_label', table_argument: 'author_row' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'published', definition: { function: 'author_published' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'all_articles', definition: { function: 'author_all_articles' } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'short_names', permission: { columns: ['id'], filter: { name_length: { _lte: 4 } } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'well_rated', permission: { columns: ['id'], filter: { published: { rating: { _gte: 4 } } } } } },
      {
        type: 'create_select_permission',
        args: { table: 'author', role: 'reader', permission: { columns: ['id', 'name'], computed_fields: ['name_length'], filter: {}, allow_aggregations: true } },
      },
    ],
  });
  expect(setup.json.slice(1)).toEqual(Array(7).fill({ message: 'success' }));
});

afterAll(async () => {
  await fx?.stop();
});

const ids = (data: any, field = 'author') => data.data[field].map((row: { id: number }) => row.id);

describe('a computed field in a select permission filter', () => {
  it('filters by a scalar computed field', async () => {
    expect(ids(await fx.gql('{ author(order_by: {id: asc}) { id } }', as('short_names')))).toEqual([1, 3]);
  });

  it('filters by a table computed field: some returned row satisfies the nested filter', async () => {
    expect(ids(await fx.gql('{ author(order_by: {id: asc}) { id } }', as('well_rated')))).toEqual([1, 2]);
  });

  it('is refused when the computed field takes arguments', async () => {
    const refused = await fx.query({ type: 'create_select_permission', args: { table: 'author', role: 'x', permission: { columns: ['id'], filter: { label: { _eq: 'x' } } } } });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('invalid-configuration');
    expect(refused.json.error).toContain('computed field "label" takes arguments');
  });

  it('is refused with an operator its type does not have', async () => {
    const refused = await fx.query({ type: 'create_select_permission', args: { table: 'author', role: 'x', permission: { columns: ['id'], filter: { name_length: { _ilike: 'x' } } } } });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toContain('unknown operator "_ilike"');
  });
});

describe('a computed field in a write permission', () => {
  it('checks an insert and filters a delete', async () => {
    const setup = await fx.query({
      type: 'bulk',
      args: [
        { type: 'add_computed_field', args: { table: 'note', name: 'body_length', definition: { function: 'note_body_length' } } },
        { type: 'create_insert_permission', args: { table: 'note', role: 'user', permission: { check: { body_length: { _lte: 5 } }, columns: ['author_id', 'body'] } } },
        { type: 'create_delete_permission', args: { table: 'note', role: 'user', permission: { filter: { body_length: { _gt: 3 } } } } },
      ],
    });
    expect(setup.json).toEqual(Array(3).fill({ message: 'success' }));
    const insert = 'mutation ($body: String!) { insert_note_one(object: {author_id: 1, body: $body}) { body } }';
    expect(await fx.gql(insert, asUser(1), { body: 'hi' })).toEqual({ data: { insert_note_one: { body: 'hi' } } });
    expect(await fx.gql(insert, asUser(1), { body: 'hello' })).toEqual({ data: { insert_note_one: { body: 'hello' } } });
    const refused = await fx.gql(insert, asUser(1), { body: 'too long' });
    expect(refused.errors[0].extensions.code).toBe('permission-error');
    expect(await fx.gql('mutation { delete_note(where: {}) { affected_rows returning { body } } }', asUser(1))).toEqual({
      data: { delete_note: { affected_rows: 1, returning: [{ body: 'hello' }] } },
    });
    expect((await fx.db.sql('select body from note order by id')).rows).toEqual([{ body: 'hi' }]);
  });
});

describe('a table computed field in where', () => {
  it('holds when some returned row matches', async () => {
    expect(ids(await fx.gql('{ author(where: {published: {title: {_ilike: "%room%"}}}) { id } }'))).toEqual([2]);
    expect(ids(await fx.gql('{ author(where: {_not: {all_articles: {}}}, order_by: {id: asc}) { id } }'))).toEqual([]);
  });

  it('reads the returned rows through the role\'s permission on their table', async () => {
    // Article 11 is Ada's and unpublished: user 1 may read it, user 2 may not.
    const query = '{ author(where: {all_articles: {id: {_eq: 11}}}) { id } }';
    expect(ids(await fx.gql(query, asUser(1)))).toEqual([1]);
    expect(ids(await fx.gql(query, asUser(2)))).toEqual([]);
  });

  it('is not offered when the computed field takes arguments', async () => {
    const data = await fx.gql('{ author(where: {label: {_eq: "x"}}) { id } }');
    expect(data.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('a scalar computed field in an aggregate', () => {
  it('is summed, averaged and compared, with its args when it has some', async () => {
    const data = await fx.gql(`{
      author_aggregate {
        aggregate {
          sum { name_length }
          avg { name_length }
          max { name_length id }
          min { label(args: {prefix: "Dr "}) }
        }
      }
    }`);
    expect(data).toEqual({
      data: { author_aggregate: { aggregate: { sum: { name_length: 12 }, avg: { name_length: 4 }, max: { name_length: 5, id: 3 }, min: { label: 'Dr Ada <ada@example.com>' } } } },
    });
  });

  it('follows the role\'s rows and its list of computed fields', async () => {
    const data = await fx.gql('{ author_aggregate(where: {id: {_lt: 3}}) { aggregate { sum { name_length } } } }', as('reader'));
    expect(data).toEqual({ data: { author_aggregate: { aggregate: { sum: { name_length: 8 } } } } });
    const hidden = await fx.gql('{ author_aggregate { aggregate { min { label } } } }', as('reader'));
    expect(hidden.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('drop_computed_field of a field a filter uses', () => {
  it('is refused, naming each permission, and drops them with cascade', async () => {
    const refused = await fx.query({ type: 'drop_computed_field', args: { table: 'note', name: 'body_length' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'dependency-error', error: 'cannot drop due to the following dependent objects : permission note.user.insert, permission note.user.delete' });
    expect((await fx.query({ type: 'drop_computed_field', args: { table: 'note', name: 'body_length', cascade: true } })).json).toEqual({ message: 'success' });
    const exported = await fx.query({ type: 'export_metadata', args: {} });
    const note = exported.json.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === 'note');
    expect(note.insert_permissions).toBeUndefined();
    expect(note.delete_permissions).toBeUndefined();
    expect(note.select_permissions).toHaveLength(1);
  });

  it('counts a select permission whose filter goes through a table computed field', async () => {
    const refused = await fx.query({ type: 'drop_computed_field', args: { table: 'author', name: 'published' } });
    expect(refused.json.error).toBe('cannot drop due to the following dependent objects : permission author.well_rated.select');
  });
});
