import { getIntrospectionQuery, GraphQLSchema, validateSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBoundedPool } from '../harness/bounded-pool.js';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/** Each role's schema is a valid GraphQL schema, answers introspection without the database, and has Hasura's shape. */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('role schemas', () => {
  it.each(['admin', 'user', 'anonymous', 'stranger'])('are valid and introspectable for %s', async (role) => {
    const served = await fixture.engine.schemaFor(role, { db: testBoundedPool(fixture.database.pool, fixture.database.url), requestId: 'schema-test' });
    // The engine builds its schemas assumed valid; the same types in a schema that is not are validated here.
    expect(validateSchema(new GraphQLSchema({ ...served.toConfig(), assumeValid: false }))).toEqual([]);
    const run = await fixture.run(getIntrospectionQuery(), { role });
    expect(run.body.errors).toBeUndefined();
    expect(run.statements).toHaveLength(0);
  });

  it('gives the anonymous role exactly its root fields and columns', async () => {
    const run = await fixture.run('{ __schema { queryType { fields { name } } } author: __type(name: "article") { fields { name type { name kind ofType { name } } } } }', { role: 'anonymous' });
    expect(run.body.data).toEqual({
      __schema: { queryType: { fields: [{ name: 'author' }, { name: 'author_by_pk' }, { name: 'article' }, { name: 'article_by_pk' }] } },
      author: {
        fields: [
          { name: 'id', type: { name: null, kind: 'NON_NULL', ofType: { name: 'Int' } } },
          { name: 'author_id', type: { name: null, kind: 'NON_NULL', ofType: { name: 'Int' } } },
          { name: 'title', type: { name: null, kind: 'NON_NULL', ofType: { name: 'String' } } },
          { name: 'rating', type: { name: 'numeric', kind: 'SCALAR', ofType: null } },
          { name: 'author', type: { name: 'author', kind: 'OBJECT', ofType: null } },
        ],
      },
    });
  });

  it("maps Postgres types as Hasura does, with each type's comparison operators", async () => {
    const types = await fixture.run(`{
      author: __type(name: "author") { fields { name type { name kind ofType { name kind ofType { name kind ofType { name } } } } } }
      text: __type(name: "String_comparison_exp") { inputFields { name } }
      jsonb: __type(name: "jsonb_comparison_exp") { inputFields { name } }
    }`);
    const data = types.body.data as { author: { fields: Array<{ name: string; type: unknown }> }; text: { inputFields: Array<{ name: string }> }; jsonb: { inputFields: Array<{ name: string }> } };
    const typeOf = (name: string) => JSON.stringify(data.author.fields.find((field) => field.name === name)!.type);
    expect(typeOf('created_at')).toContain('"timestamptz"');
    expect(typeOf('tags')).toBe(JSON.stringify({ name: null, kind: 'LIST', ofType: { name: null, kind: 'NON_NULL', ofType: { name: 'String', kind: 'SCALAR', ofType: null } } }));
    expect(typeOf('mood')).toContain('"mood"');
    expect(data.text.inputFields.map((field) => field.name)).toEqual([
      '_eq', '_gt', '_gte', '_ilike', '_in', '_iregex', '_is_null', '_like', '_lt', '_lte', '_neq', '_nilike', '_nin', '_niregex', '_nlike', '_nregex', '_nsimilar', '_regex', '_similar',
    ]);
    expect(data.jsonb.inputFields.map((field) => field.name)).toEqual([
      '_contained_in', '_contains', '_eq', '_gt', '_gte', '_has_key', '_has_keys_all', '_has_keys_any', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin',
    ]);
  });
});

describe('wide tables', () => {
  it('select more columns than one json_build_object call takes, keys in order', async () => {
    const columns = Array.from({ length: 60 }, (_, index) => `c${index}`);
    const own = await setupGraphqlFixture({
      metadata: { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'wide' } }] }] },
      setupSql: `create table wide (id int primary key, ${columns.map((column) => `${column} int`).join(', ')});
                 insert into wide values (1, ${columns.map((_, index) => index).join(', ')});`,
    });
    try {
      const run = await own.run(`{ wide { ${columns.join(' ')} } }`);
      expect(run.statements).toHaveLength(1);
      expect(Object.entries((run.body.data as { wide: Array<Record<string, number>> }).wide[0]!)).toEqual(columns.map((column, index) => [column, index]));
    } finally {
      await own.close();
    }
  });
});
