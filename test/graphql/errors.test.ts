import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * Error bodies of /v1/graphql (compat-facts 1 and 8): `{"errors":[{message, extensions:
 * {path, code}}]}` with no `data` key, Hasura's messages and `$.selectionSet...` paths.
 */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

const failure = (message: string, path: string, code = 'validation-failed') => ({ errors: [{ message, extensions: { path, code } }] });

describe('validation errors', () => {
  it('names an unknown root field as Hasura does', async () => {
    const run = await fixture.run('{ nope { id } }');
    expect(run.body).toEqual(failure("field 'nope' not found in type: 'query_root'", '$.selectionSet.nope'));
    expect(run.statements).toHaveLength(0);
  });

  it('names an unknown nested field with its full path', async () => {
    const run = await fixture.run('{ author { id articles { nope } } }');
    expect(run.body).toEqual(failure("field 'nope' not found in type: 'article'", '$.selectionSet.author.selectionSet.articles.selectionSet.nope'));
  });

  it('refuses a table the role has no select permission on', async () => {
    const run = await fixture.run('{ comment { id } }', { role: 'anonymous' });
    expect(run.body).toEqual(failure("field 'comment' not found in type: 'query_root'", '$.selectionSet.comment'));
  });

  it('refuses an argument the field does not have, at the field', async () => {
    const run = await fixture.run('{ author(foo: 1) { id } }');
    expect(run.body).toEqual(failure("'author' has no argument named 'foo'", '$.selectionSet.author'));
  });

  it('asks for a missing required argument', async () => {
    const run = await fixture.run('{ article_by_pk { id } }');
    expect(run.body).toEqual(failure("missing required field 'id'", '$.selectionSet.article_by_pk.args.id'));
  });

  it('names an unknown field of an input object with its path', async () => {
    const run = await fixture.run('{ author(where: {nope: {_eq: 1}}) { id } }');
    expect(run.body).toEqual(failure("field 'nope' not found in type: 'author_bool_exp'", '$.selectionSet.author.args.where.nope'));
  });

  it('asks for a selection set on an object field', async () => {
    const run = await fixture.run('{ author }');
    expect(run.body).toEqual(failure("missing selection set for 'author'", '$.selectionSet.author'));
  });

  it('refuses a selection set on a scalar field', async () => {
    const run = await fixture.run('{ author { id { x } } }');
    expect(run.body).toEqual(failure('unexpected subselection set for non-object field', '$.selectionSet.author.selectionSet.id'));
  });

  it('refuses a variable used at a type other than its declared one', async () => {
    const run = await fixture.run('query ($x: String) { author(limit: $x) { id } }');
    expect(run.body).toEqual(failure("variable 'x' is declared as 'String', but used where 'Int' is expected", '$.selectionSet.author.args.limit'));
  });

  it('answers a query that does not parse with "not a valid graphql query"', async () => {
    const run = await fixture.run('{ author { ');
    expect(run.body).toEqual(failure('not a valid graphql query', '$.query'));
  });

  it('needs operationName when the document has several operations', async () => {
    const query = 'query A { author { id } } query B { article { id } }';
    expect((await fixture.run(query)).body).toEqual(
      failure('exactly one operation has to be present in the document when operationName is not specified', '$'),
    );
    expect((await fixture.run(query, { operationName: 'C' })).body).toEqual(failure('no such operation found in the document: "C"', '$'));
    const chosen = await fixture.run(query, { operationName: 'B' });
    expect(chosen.body.data).toEqual({ article: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }] });
  });

  it('has no mutations for a role without write permissions', async () => {
    const run = await fixture.run('mutation { author { id } }', { role: 'anonymous' });
    expect(run.body).toEqual(failure('no mutations exist', '$'));
  });

  it('asks for a required variable that was not given', async () => {
    const run = await fixture.run('query ($id: Int!) { article_by_pk(id: $id) { id } }');
    expect(run.body).toEqual(failure('expecting a value for non-nullable variable: "id"', '$'));
  });

  it('refuses null as a comparison value', async () => {
    const run = await fixture.run('query ($v: Int) { author(where: {id: {_eq: $v}}) { id } }', { variables: { v: null } });
    expect(run.body).toEqual(failure('unexpected null value for type "Int"', '$.selectionSet.author.args.where.id._eq'));
  });

  it('refuses distinct_on columns that do not lead order_by', async () => {
    const run = await fixture.run('{ article(distinct_on: [author_id], order_by: {id: asc}) { id } }');
    expect(run.body).toEqual(failure('"distinct_on" columns must match initial "order_by" columns', '$.selectionSet.article.args'));
  });
});

describe('request-time errors', () => {
  it('names the session variables a permission needs and the request lacks', async () => {
    const run = await fixture.run('{ article { id } }', { role: 'user' });
    expect(run.body).toEqual(failure('missing session variables: "x-service-user-id"', '$', 'not-found'));
    expect(run.statements).toHaveLength(0);
  });

  it('answers a value Postgres rejects as data-exception, without SQL for a non-admin role', async () => {
    const run = await fixture.run('{ article(where: {views: {_eq: "abc"}}) { id } }', { role: 'user', sessionVariables: { 'x-service-user-id': '1' } });
    expect(run.body).toEqual(failure('invalid input syntax for type bigint: "abc"', '$', 'data-exception'));
  });

  it('shows the admin the statement and Postgres error as internal detail', async () => {
    const run = await fixture.run('{ article(where: {views: {_eq: "abc"}}) { id } }');
    const error = run.body.errors![0]!;
    expect(error.extensions.code).toBe('data-exception');
    expect(error.extensions.internal).toMatchObject({ prepared: true, error: { status_code: '22P02', exec_status: 'FatalError' } });
    expect((error.extensions.internal as { statement: string }).statement).toContain('"public"."article"');
  });
});

describe('a role with no permissions', () => {
  it('sees only the no_queries_available placeholder', async () => {
    expect((await fixture.run('{ no_queries_available }', { role: 'stranger' })).text).toBe('{"data":{"no_queries_available":""}}');
    expect((await fixture.run('{ author { id } }', { role: 'stranger' })).body).toEqual(
      failure("field 'author' not found in type: 'query_root'", '$.selectionSet.author'),
    );
  });
});

describe('Postgres errors other than bad values', () => {
  it('say "database query error" and keep the SQL for the admin only', async () => {
    const own = await setupGraphqlFixture();
    try {
      await own.database.sql('alter table comment rename to remark');
      const asUser = await own.run('{ comment { id } }', { role: 'user', sessionVariables: { 'x-service-user-id': '1' } });
      expect(asUser.body).toEqual(failure('database query error', '$', 'postgres-error'));
      expect(asUser.text).not.toContain('select');
      const asAdmin = await own.run('{ comment { id } }');
      expect(asAdmin.body.errors![0]!.extensions).toMatchObject({ code: 'postgres-error', internal: { error: { status_code: '42P01' } } });
    } finally {
      await own.close();
    }
  });
});
