import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, expectRefusal, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** track_function v1/v2, untrack_function, set_function_customization and function permissions (interface 2.4, 4.2; compat-facts 6.1, 6.3). */
let fx: FunctionsFixture;

const trackV2 = (fn: string, configuration?: Record<string, unknown>) =>
  fx.query({ type: 'track_function', version: 2, args: { function: { schema: 'public', name: fn }, ...(configuration === undefined ? {} : { configuration }) } });

beforeAll(async () => {
  fx = await startFunctionsFixture();
});

afterAll(async () => {
  await fx?.stop();
});

describe('track_function, first stage', () => {
  it('refuses a function tracked twice', async () => {
    expect((await fx.query({ type: 'track_function', args: { schema: 'public', name: 'stable_articles' } })).json).toEqual({ message: 'success' });
    const again = await fx.query({ type: 'track_function', args: { schema: 'public', name: 'stable_articles' } });
    expectRefusal(again, 'already-tracked', 'function already tracked: "stable_articles"');
    expect(again.json.path).toBe('$.args');
  });

  it('refuses a function named like a tracked table', async () => {
    expectRefusal(await fx.query({ type: 'track_function', args: { schema: 'public', name: 'author' } }), 'not-supported', 'table with name "author" already exists');
  });

  it('refuses root field names a tracked table already answers to', async () => {
    expectRefusal(await trackV2('search_articles', { custom_name: 'author' }), 'remote-schema-conflicts', 'node author already exists in current graphql schema');
    expectRefusal(await trackV2('search_articles', { custom_root_fields: { function_aggregate: 'author_aggregate' } }), 'remote-schema-conflicts', 'node author_aggregate already exists in current graphql schema');
  });

  it('refuses a function that does not exist', async () => {
    expectRefusal(await fx.query({ type: 'track_function', args: { schema: 'public', name: 'nope' } }), 'not-exists', 'no such function exists in postgres : "nope"');
  });

  it('refuses an overloaded function', async () => {
    expectRefusal(await trackV2('overloaded'), 'not-supported', 'function "overloaded" is overloaded. Overloaded functions are not supported');
  });
});

describe('run_sql and tracked functions', () => {
  it('refuses to overload a tracked function', async () => {
    const result = await fx.query({ type: 'run_sql', args: { sql: 'create function stable_articles(x integer) returns setof article language sql stable as $$ select * from article $$' } });
    expectRefusal(result, 'not-supported', 'the following tracked function(s) cannot be overloaded: stable_articles');
    expect(result.json.path).toBe('$.args');
  });

  it('refuses to drop a tracked function unless cascade, which untracks it', async () => {
    await fx.query({ type: 'track_function', args: 'paged_articles' });
    const refused = await fx.query({ type: 'run_sql', args: { sql: 'drop function paged_articles' } });
    expectRefusal(refused, 'dependency-error', 'cannot drop due to the following dependent objects : function paged_articles');
    expect((await fx.query({ type: 'run_sql', args: { sql: 'drop function paged_articles', cascade: true } })).json.result_type).toBe('CommandOk');
    const functions = (await fx.query({ type: 'export_metadata', args: {} })).json.sources[0].functions;
    expect(functions).toEqual([{ function: { schema: 'public', name: 'stable_articles' } }]);
  });
});

describe('track_function, the function rules', () => {
  it.each([
    ['a scalar return', 'returns_int', undefined, 'the function "returns_int" cannot be tracked because the function does not return a "COMPOSITE" type'],
    ['a composite return that is not a table', 'returns_pairs', undefined, 'because the function does not return a table'],
    ['OUT arguments', 'with_out', undefined, 'because function with "OUT" or "INOUT" parameters are not supported'],
    ['VARIADIC arguments', 'with_variadic', undefined, 'because function with "VARIADIC" parameters are not supported'],
    ['a STABLE function as a mutation', 'search_articles', { exposed_as: 'mutation' }, 'because the function was requested to be exposed as a mutation, but is not marked VOLATILE. Maybe the function was given the wrong volatility when it was defined?'],
    ['a session argument that is not an argument', 'search_articles', { session_argument: 'nope' }, 'because given session argument "nope" not the input argument of the function'],
    ['a session argument that is not json', 'session_text', { session_argument: 's' }, 'because given session argument "s" is not of type json'],
    ['a function name that is not a GraphQL name', 'bad name', undefined, 'because function name is not a legal GraphQL identifier'],
    ['rows of a table that is not tracked', 'untracked_rows', undefined, 'in function "untracked_rows": table "untracked" is not tracked'],
  ])('refuses %s', async (_what, fn, configuration, message) => {
    const result = await trackV2(fn, configuration);
    expectRefusal(result, 'invalid-configuration', `in function ${JSON.stringify(fn)}: `);
    expect(result.json.error).toContain(message);
    expect(result.json.path).toBe('$.args');
    expect(result.json.internal).toEqual([expect.objectContaining({ type: 'function', definition: expect.objectContaining({ function: { schema: 'public', name: fn } }) })]);
  });

  it('lists several reasons at once', async () => {
    const result = await trackV2('returns_int', { exposed_as: 'mutation', session_argument: 'x' });
    expect(result.json.error).toContain(
      'the function "returns_int" cannot be tracked for the following reasons:\n' +
        '  • the function does not return a "COMPOSITE" type\n' +
        '  • the function was requested to be exposed as a mutation, but is not marked VOLATILE. Maybe the function was given the wrong volatility when it was defined?\n' +
        '  • given session argument "x" not the input argument of the function\n',
    );
  });
});

describe('untrack_function and set_function_customization', () => {
  it('renames the root fields, then removes them on untrack (either argument form)', async () => {
    expect((await trackV2('search_articles')).json).toEqual({ message: 'success' });
    const customized = await fx.query({
      type: 'set_function_customization',
      args: { function: 'search_articles', configuration: { custom_name: 'find_articles', custom_root_fields: { function_aggregate: 'count_found' } } },
    });
    expect(customized.json).toEqual({ message: 'success' });
    expect(await fx.gql('{ find_articles(args: {search: "pipe"}) { id } count_found(args: {search: "pipe"}) { aggregate { count } } }')).toEqual({
      data: { find_articles: [{ id: 12 }], count_found: { aggregate: { count: 1 } } },
    });
    expect((await fx.query({ type: 'untrack_function', args: { table: { schema: 'public', name: 'search_articles' } } })).json).toEqual({ message: 'success' });
    expect((await fx.gql('{ find_articles(args: {search: "pipe"}) { id } }')).errors[0].message).toBe("field 'find_articles' not found in type: 'query_root'");
    expect((await fx.query({ type: 'untrack_function', args: { schema: 'public', name: 'stable_articles' } })).json).toEqual({ message: 'success' });
    expect((await fx.gql('{ stable_articles { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('refuses to untrack or customize a function that is not tracked', async () => {
    expectRefusal(await fx.query({ type: 'untrack_function', args: { schema: 'public', name: 'stable_articles' } }), 'not-exists', 'function "stable_articles" not found in the cache');
    expectRefusal(await fx.query({ type: 'set_function_customization', args: { function: 'stable_articles', configuration: {} } }), 'not-exists', 'function "stable_articles" not found in the cache');
  });
});

describe('function permissions', () => {
  it('needs the role to read the return table, refuses duplicates and unknown drops', async () => {
    expect((await trackV2('stable_articles')).json).toEqual({ message: 'success' });
    expectRefusal(
      await fx.query({ type: 'create_function_permission', args: { function: 'stable_articles', role: 'stranger' } }),
      'not-supported',
      'function permission can only be added when the function\'s return table "article" has select permission configured for role: "stranger"',
    );
    expect((await fx.query({ type: 'create_function_permission', args: { function: 'stable_articles', role: 'user' } })).json).toEqual({ message: 'success' });
    expectRefusal(await fx.query({ type: 'create_function_permission', args: { function: 'stable_articles', role: 'user' } }), 'already-exists', 'permission of role "user" already exists for function "stable_articles"');
    expect((await fx.query({ type: 'drop_function_permission', args: { function: 'stable_articles', role: 'user' } })).json).toEqual({ message: 'success' });
    expectRefusal(await fx.query({ type: 'drop_function_permission', args: { function: 'stable_articles', role: 'user' } }), 'not-exists', 'permission of role "user" does not exist for function "stable_articles"');
    expectRefusal(await fx.query({ type: 'create_function_permission', args: { function: 'nope', role: 'user' } }), 'not-exists', 'function "nope" not found in the cache');
  });
});

describe('export and replace', () => {
  it('carry functions, their configuration and permissions, and computed fields', async () => {
    await fx.query({
      type: 'bulk',
      args: [
        { type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'my_articles' }, configuration: { session_argument: 'service_session', exposed_as: 'query' }, comment: 'mine' } },
        { type: 'create_function_permission', args: { function: { schema: 'public', name: 'my_articles' }, role: 'user' } },
        { type: 'add_computed_field', args: { table: 'author', name: 'name_length', definition: { function: 'author_name_length' }, comment: 'letters' } },
      ],
    });
    const exported = (await fx.query({ type: 'export_metadata', args: {} })).json;
    const source = exported.sources[0];
    expect(source.functions).toEqual([
      { function: { schema: 'public', name: 'my_articles' }, configuration: { session_argument: 'service_session', exposed_as: 'query' }, permissions: [{ role: 'user' }], comment: 'mine' },
      { function: { schema: 'public', name: 'stable_articles' } },
    ]);
    const author = source.tables.find((entry: { table: { name: string } }) => entry.table.name === 'author');
    expect(author.computed_fields).toEqual([{ name: 'name_length', definition: { function: { schema: 'public', name: 'author_name_length' } }, comment: 'letters' }]);

    expect((await fx.query({ type: 'clear_metadata', args: {} })).json).toEqual({ message: 'success' });
    expect((await fx.gql('{ my_articles { id } }', asUser(2))).errors[0].extensions.code).toBe('validation-failed');
    expect((await fx.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect((await fx.query({ type: 'export_metadata', args: {} })).json).toEqual(exported);
    expect(await fx.gql('{ my_articles(order_by: {id: asc}) { id } }', asUser(2))).toEqual({ data: { my_articles: [{ id: 12 }, { id: 14 }] } });
    expect(await fx.gql('{ author(where: {id: {_eq: 3}}) { name_length } }')).toEqual({ data: { author: [{ name_length: 4 }] } });
  });

  it('refuses to replace with a function that does not pass the rules', async () => {
    const exported = (await fx.query({ type: 'export_metadata', args: {} })).json;
    const broken = structuredClone(exported);
    broken.sources[0].functions.push({ function: { schema: 'public', name: 'returns_int' } });
    const result = await fx.query({ type: 'replace_metadata', args: broken });
    expectRefusal(result, 'unexpected', 'cannot continue due to inconsistent metadata');
    expect(result.json.internal).toEqual([expect.objectContaining({ type: 'function' })]);
  });
});
