import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** Functions and computed fields the database no longer matches (interface 2.7, 4.2 rules 4 and 6). */
let fx: FunctionsFixture;

beforeAll(async () => {
  fx = await startFunctionsFixture();
  const setup = await fx.query({
    type: 'bulk',
    args: [
      { type: 'track_function', args: { schema: 'public', name: 'search_articles' } },
      { type: 'track_function', args: { schema: 'public', name: 'stable_articles' } },
      { type: 'add_computed_field', args: { table: 'author', name: 'name_length', definition: { function: 'author_name_length' } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'label', definition: { function: 'author_label', table_argument: 'author_row' } } },
    ],
  });
  expect(setup.json).toEqual(Array(4).fill({ message: 'success' }));
});

afterAll(async () => {
  await fx?.stop();
});

describe('a function dropped or changed in the database', () => {
  it('is reported after reload_metadata while everything else keeps serving', async () => {
    await fx.db.sql(`
      drop function stable_articles();
      drop function author_name_length(author);
      create or replace function author_label(author_row author, prefix text default '') returns text
        language sql volatile as $$ select prefix || author_row.name $$;
    `);
    const reloaded = await fx.query({ type: 'reload_metadata', args: {} });
    expect(reloaded.json.is_consistent).toBe(false);

    const inconsistent = (await fx.query({ type: 'get_inconsistent_metadata', args: {} })).json;
    expect(inconsistent).toEqual(expect.arrayContaining([
      {
        type: 'function',
        definition: { function: { schema: 'public', name: 'stable_articles' }, source: 'default' },
        reason: 'in function "stable_articles": no such function exists in postgres : "stable_articles"',
      },
      {
        type: 'computed_field',
        definition: { name: 'name_length', definition: { function: { schema: 'public', name: 'author_name_length' } }, source: 'default', table: { schema: 'public', name: 'author' } },
        reason: 'in table "author": in computed field "name_length": no such function exists in postgres : "author_name_length"',
      },
      expect.objectContaining({
        type: 'computed_field',
        reason: 'in table "author": in computed field "label": the computed field "label" cannot be added to table "author" because the function "author_label" is of type VOLATILE; cannot be added as a computed field',
      }),
    ]));
    expect(inconsistent).toHaveLength(3);

    expect(await fx.gql('{ search_articles(args: {search: "pipe"}) { id } author(where: {id: {_eq: 1}}) { name } }')).toEqual({
      data: { search_articles: [{ id: 12 }], author: [{ name: 'Ada' }] },
    });
    expect((await fx.gql('{ stable_articles { id } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await fx.gql('{ author { name_length } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('comes back when the database is repaired and reloaded', async () => {
    await fx.db.sql('create function author_name_length(author) returns integer language sql immutable as $$ select length($1.name) $$');
    await fx.query({ type: 'reload_metadata', args: {} });
    expect(await fx.gql('{ author(where: {id: {_eq: 2}}) { name_length } }')).toEqual({ data: { author: [{ name_length: 5 }] } });
    expect((await fx.query({ type: 'get_inconsistent_metadata', args: {} })).json).toHaveLength(2);
  });

  it('is removed from the metadata by drop_inconsistent_metadata', async () => {
    expect((await fx.query({ type: 'drop_inconsistent_metadata', args: {} })).json).toEqual({ message: 'success' });
    expect((await fx.query({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
    const source = (await fx.query({ type: 'export_metadata', args: {} })).json.sources[0];
    expect(source.functions).toEqual([{ function: { schema: 'public', name: 'search_articles' } }]);
    const author = source.tables.find((entry: { table: { name: string } }) => entry.table.name === 'author');
    expect(author.computed_fields.map((field: { name: string }) => field.name)).toEqual(['name_length']);
  });

  it('makes an operation that breaks a tracked function fail with the function\'s reason', async () => {
    const result = await fx.query({ type: 'untrack_table', args: { table: 'article' } });
    expect(result.status).toBe(400);
    expect(result.json.error).toContain('in function "search_articles": table "article" is not tracked');
  });
});
