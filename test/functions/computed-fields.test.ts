import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, expectRefusal, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Computed fields on a table and on a view (interface 2.5, compat-facts 6.2, 6.3). */
let fx: FunctionsFixture;

const add = (table: string, name: string, fn: string, extra: Record<string, unknown> = {}) =>
  fx.query({ type: 'add_computed_field', args: { table: { schema: 'public', name: table }, name, definition: { function: { schema: 'public', name: fn }, ...extra } } });

beforeAll(async () => {
  fx = await startFunctionsFixture();
  for (const [table, name, fn, extra] of [
    ['author', 'label', 'author_label', { table_argument: 'author_row' }],
    ['author', 'name_length', 'author_name_length', {}],
    ['author', 'rated_articles', 'author_articles_rated', {}],
    ['author', 'greeting', 'author_greeting', { session_argument: 'service_session' }],
    ['author_view', 'shout', 'author_view_shout', {}],
    ['author_view', 'articles_like', 'author_view_articles', {}],
  ] as const) {
    expect((await add(table, name, fn, extra)).json).toEqual({ message: 'success' });
  }
  await fx.query({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } });
  await fx.query({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['name_length', 'greeting'], filter: {} } } });
});

afterAll(async () => {
  await fx?.stop();
});

describe('a scalar computed field', () => {
  it('is selected with and without its args', async () => {
    const data = await fx.gql('{ author(order_by: {id: asc}, limit: 2) { id label plain: label(args: {prefix: "Dr "}) name_length } }');
    expect(data).toEqual({ data: { author: [
      { id: 1, label: 'Ada <ada@example.com>', plain: 'Dr Ada <ada@example.com>', name_length: 3 },
      { id: 2, label: 'Brian <brian@example.com>', plain: 'Dr Brian <brian@example.com>', name_length: 5 },
    ] } });
  });

  it('filters and sorts when it takes no arguments of its own', async () => {
    const data = await fx.gql('{ author(where: {name_length: {_gt: 3}}, order_by: [{name_length: desc}, {id: asc}]) { id name_length } }');
    expect(data).toEqual({ data: { author: [{ id: 2, name_length: 5 }, { id: 3, name_length: 4 }] } });
    const limited = await fx.gql('{ author(order_by: {name_length: asc}, limit: 2, offset: 1) { id } }');
    expect(limited).toEqual({ data: { author: [{ id: 3 }, { id: 2 }] } });
  });

  it('is not a filter or sort key when it takes arguments', async () => {
    const data = await fx.gql('{ author(where: {label: {_eq: "x"}}) { id } }');
    expect(data.errors[0].extensions.code).toBe('validation-failed');
  });

  it('is seen by a role only when its select permission lists it', async () => {
    const data = await fx.gql('{ author(where: {id: {_eq: 1}}) { name name_length } }', asUser(1));
    expect(data).toEqual({ data: { author: [{ name: 'Ada', name_length: 3 }] } });
    const hidden = await fx.gql('{ author { label } }', asUser(1));
    expect(hidden.errors[0].message).toBe("field 'label' not found in type: 'author'");
  });

  it('receives the session without showing it as an argument', async () => {
    const data = await fx.gql('{ author(where: {id: {_eq: 2}}) { greeting } }', asUser(9));
    expect(data).toEqual({ data: { author: [{ greeting: 'hello Brian from 9' }] } });
  });

  it('works on a view', async () => {
    const data = await fx.gql('{ author_view(where: {shout: {_like: "%R%"}}, order_by: {shout: desc}) { id shout } }');
    expect(data).toEqual({ data: { author_view: [{ id: 2, shout: 'BRIAN' }] } });
  });
});

describe('a table computed field', () => {
  it('takes args, where, order_by, limit and offset', async () => {
    const data = await fx.gql(`{
      author(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) {
        id
        rated_articles(args: {min: 3}, where: {title: {_ilike: "%e%"}}, order_by: {rating: asc}, limit: 1) { id rating }
      }
    }`);
    expect(data).toEqual({ data: { author: [{ id: 1, rated_articles: [{ id: 11, rating: 3 }] }, { id: 2, rated_articles: [{ id: 12, rating: 4 }] }] } });
  });

  it('follows the return table\'s permission for a restricted role', async () => {
    const data = await fx.gql('{ author(where: {id: {_eq: 1}}) { rated_articles(args: {min: 0}, order_by: {id: asc}) { id } } }', asUser(2));
    expect(data).toEqual({ data: { author: [{ rated_articles: [{ id: 10 }] }] } });
  });

  it('works on a view, within a limited outer list', async () => {
    const data = await fx.gql('{ author_view(order_by: {id: desc}, limit: 2) { id articles_like(args: {title_like: "%engine%"}, order_by: {id: asc}) { id } } }');
    expect(data).toEqual({ data: { author_view: [{ id: 3, articles_like: [{ id: 13 }] }, { id: 2, articles_like: [{ id: 14 }] }] } });
  });
});

describe('add_computed_field refusals', () => {
  it('refuses an unknown table', async () => {
    const result = await fx.query({ type: 'add_computed_field', args: { table: 'random', name: 'x', definition: { function: 'author_label' } } });
    expectRefusal(result, 'not-exists', 'table "random" does not exist');
    expect(result.json.path).toBe('$.args.table');
  });

  it.each([
    ['a name that clashes with a column', 'email', 'author_label', {}, 'in table "author": in computed field "email": field definition conflicts with postgres column'],
    ['a function that does not exist', 'x', 'random_function', {}, 'in table "author": in computed field "x": no such function exists in postgres : "random_function"'],
    ['a table argument that is not an argument', 'x', 'author_label', { table_argument: 'random' }, 'the computed field "x" cannot be added to table "author" because "random" is not an input argument of the function "author_label"'],
    ['a VOLATILE function', 'x', 'volatile_label', {}, 'because the function "volatile_label" is of type VOLATILE; cannot be added as a computed field'],
    ['a function without arguments', 'x', 'hello_world', {}, 'because the function "hello_world" has no input arguments'],
    ['a first argument that is not the row', 'x', 'first_not_row', {}, 'first argument of the function "first_not_row" of type "pg_catalog.text" is not the table to which the computed field is being added'],
    ['a session argument that is not json', 'x', 'author_label', { session_argument: 'prefix' }, '"prefix" argument of the function "author_label" is not of type JSON'],
    [
      'rows of a table that is not tracked, listing every reason',
      'x',
      'untracked_rows',
      {},
      'for the following reasons:\n  • the function "untracked_rows" returning set of table "untracked" is not tracked or not found in database\n  • the function "untracked_rows" has no input arguments\n',
    ],
    ['an overloaded function', 'x', 'overloaded', {}, 'function "overloaded" is overloaded. Overloaded functions are not supported'],
  ])('refuses %s', async (_what, name, fn, extra, message) => {
    const result = await add('author', name, fn, extra);
    expectRefusal(result, 'invalid-configuration', message);
    expect(result.json.path).toBe('$.args');
    expect(result.json.internal[0]).toMatchObject({ type: 'computed_field', definition: { name, table: { schema: 'public', name: 'author' } } });
  });

  it('refuses a second field of the same name', async () => {
    expectRefusal(await add('author', 'label', 'author_label'), 'already-exists', 'computed field "label" already exists');
  });
});

describe('drop_computed_field', () => {
  it('refuses while a permission lists the field, drops it and the permission with cascade', async () => {
    const refused = await fx.query({ type: 'drop_computed_field', args: { table: 'author', name: 'name_length' } });
    expectRefusal(refused, 'dependency-error', 'cannot drop due to the following dependent objects : permission author.user.select');
    expect((await fx.query({ type: 'drop_computed_field', args: { table: 'author', name: 'name_length', cascade: true } })).json).toEqual({ message: 'success' });
    const exported = await fx.query({ type: 'export_metadata', args: {} });
    const author = exported.json.sources[0].tables.find((entry: { table: { name: string } }) => entry.table.name === 'author');
    expect(author.select_permissions).toBeUndefined();
    expect(author.computed_fields.map((field: { name: string }) => field.name)).toEqual(['greeting', 'label', 'rated_articles']);
  });

  it('removes the field from the schema', async () => {
    expect((await fx.query({ type: 'drop_computed_field', args: { table: 'author_view', name: 'shout' } })).json).toEqual({ message: 'success' });
    const data = await fx.gql('{ author_view { shout } }');
    expect(data.errors[0].message).toBe("field 'shout' not found in type: 'author_view'");
    expectRefusal(await fx.query({ type: 'drop_computed_field', args: { table: 'author_view', name: 'shout' } }), 'not-exists', 'computed field "shout" does not exist');
  });
});
