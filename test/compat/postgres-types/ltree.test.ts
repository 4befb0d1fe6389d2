import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';

/**
 * Issue 19, PostgreSQL types: `ltree` columns with Hasura's operators (`_ancestor`,
 * `_ancestor_any`, `_descendant`, `_descendant_any`, `_matches`, `_matches_any`,
 * `_matches_fulltext`) over /v1/graphql, in queries, permission filters and inserts. The
 * extension lives in a schema of its own, `extensions`, off the search_path, as hosted
 * databases often install it: the engine must find its operators there.
 */
let database: TestDatabase;
let engine: TestEngine;

const SETUP_SQL = `
  create schema extensions;
  create extension ltree schema extensions;
  create table node (id int primary key, path extensions.ltree not null, label text);
  insert into node values
    (1, 'Top', 'top'),
    (2, 'Top.Science', 'science'),
    (3, 'Top.Science.Astronomy', 'astronomy'),
    (4, 'Top.Science.Astronomy.Astrophysics', 'astrophysics'),
    (5, 'Top.Science.Astronomy.Cosmology', 'cosmology'),
    (6, 'Top.Hobbies', 'hobbies'),
    (7, 'Top.Hobbies.Amateurs_Astronomy', 'amateurs'),
    (8, 'Top.Collections', 'collections'),
    (9, 'Top.Collections.Pictures', 'pictures'),
    (10, 'Top.Collections.Pictures.Astronomy', 'astro pictures'),
    (11, 'Top.Collections.Pictures.Astronomy.Stars', 'stars');
`;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.sql(SETUP_SQL);
  engine = await startTestEngine({ databaseUrl: database.url });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'node' } },
      {
        type: 'create_select_permission',
        args: { table: 'node', role: 'reader', permission: { columns: ['id', 'path'], filter: { path: { _descendant: 'X-Service-Branch' } } } },
      },
      { type: 'create_insert_permission', args: { table: 'node', role: 'reader', permission: { columns: ['id', 'path'], check: { path: { _matches: '*.Science.*' } } } } },
    ],
  });
  expect(setup.json).toEqual(Array(3).fill({ message: 'success' }));
});

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
});

async function ids(where: string, variables?: Record<string, unknown>): Promise<number[]> {
  const declared = variables === undefined ? '' : `(${Object.keys(variables).map((name) => `$${name}: ${name === 'patterns' ? '[String!]' : name === 'paths' ? '[ltree!]' : name}`).join(', ')})`;
  const answer = await engine.graphql({ query: `query${declared} { node(where: ${where}, order_by: {id: asc}) { id } }`, variables });
  expect(answer.json.errors, answer.text).toBeUndefined();
  return (answer.json.data.node as Array<{ id: number }>).map((row) => row.id);
}

describe('ltree operators over /v1/graphql', () => {
  it('_ancestor: the column is an ancestor of the value, or equal', async () => {
    expect(await ids('{path: {_ancestor: "Top.Science.Astronomy"}}')).toEqual([1, 2, 3]);
  });

  it('_ancestor_any: an ancestor of any value in the list', async () => {
    expect(await ids('{path: {_ancestor_any: ["Top.Science.Astronomy", "Top.Collections.Pictures"]}}')).toEqual([1, 2, 3, 8, 9]);
  });

  it('_descendant: the column is a descendant of the value, or equal', async () => {
    expect(await ids('{path: {_descendant: "Top.Collections"}}')).toEqual([8, 9, 10, 11]);
  });

  it('_descendant_any: a descendant of any value in the list, from a variable', async () => {
    expect(await ids('{path: {_descendant_any: $paths}}', { paths: ['Top.Hobbies', 'Top.Science.Astronomy'] })).toEqual([3, 4, 5, 6, 7]);
  });

  it('_matches: the column matches an lquery', async () => {
    expect(await ids('{path: {_matches: "*.Astronomy.*"}}')).toEqual([3, 4, 5, 10, 11]);
    expect(await ids('{path: {_matches: $lquery}}', { lquery: 'Top.*{1}' })).toEqual([2, 6, 8]);
  });

  it('_matches_any: the column matches any lquery of a list of strings', async () => {
    expect(await ids('{path: {_matches_any: ["*.Cosmology", "Top.Hobbies.*"]}}')).toEqual([5, 6, 7]);
    expect(await ids('{path: {_matches_any: $patterns}}', { patterns: ['*.Stars'] })).toEqual([11]);
  });

  it('_matches_fulltext: the column matches an ltxtquery', async () => {
    expect(await ids('{path: {_matches_fulltext: "Astro*% & !pictures@"}}')).toEqual([3, 4, 5, 7]);
    expect(await ids('{path: {_matches_fulltext: $ltxtquery}}', { ltxtquery: 'Stars' })).toEqual([11]);
  });

  it('keeps the ordering and membership operators, and answers paths as strings', async () => {
    expect(await ids('{path: {_in: ["Top", "Top.Hobbies"]}, _not: {path: {_eq: "Top"}}}')).toEqual([6]);
    const answer = await engine.graphql({ query: '{ node(where: {path: {_gt: "Top.Science.Astronomy.Astrophysics"}}, order_by: {path: desc}) { path } }' });
    expect(answer.json).toEqual({ data: { node: [{ path: 'Top.Science.Astronomy.Cosmology' }] } });
  });

  it('describes ltree_comparison_exp as Hasura does', async () => {
    const answer = await engine.graphql({ query: '{ __type(name: "ltree_comparison_exp") { inputFields { name type { name kind ofType { name ofType { name } } } } } }' });
    const fields = Object.fromEntries((answer.json.data.__type.inputFields as Array<{ name: string; type: { name: string | null; kind: string; ofType: { name: string | null; ofType: { name: string } | null } | null } }>)
      .map((field) => [field.name, field.type.name ?? `[${field.type.ofType!.ofType!.name}!]`]));
    expect(fields).toEqual({
      _ancestor: 'ltree', _ancestor_any: '[ltree!]', _descendant: 'ltree', _descendant_any: '[ltree!]',
      _eq: 'ltree', _gt: 'ltree', _gte: 'ltree', _in: '[ltree!]', _is_null: 'Boolean', _lt: 'ltree', _lte: 'ltree',
      _matches: 'lquery', _matches_any: '[String!]', _matches_fulltext: 'ltxtquery', _neq: 'ltree', _nin: '[ltree!]',
    });
  });
});

describe('ltree in permissions and mutations', () => {
  const reader = (branch: string) => ({ 'x-service-role': 'reader', 'x-service-branch': branch });

  it('filters a role\'s rows with _descendant of a session variable', async () => {
    const answer = await engine.graphql({ query: '{ node(order_by: {id: asc}) { id path } }' }, reader('Top.Hobbies'));
    expect(answer.json).toEqual({ data: { node: [{ id: 6, path: 'Top.Hobbies' }, { id: 7, path: 'Top.Hobbies.Amateurs_Astronomy' }] } });
    const narrowed = await engine.graphql({ query: '{ node(where: {path: {_matches: "*.Amateurs_*"}}) { id } }' }, reader('Top.Hobbies'));
    expect(narrowed.json).toEqual({ data: { node: [{ id: 7 }] } });
  });

  it('inserts an ltree value, checked by an insert permission using _matches', async () => {
    const inserted = await engine.graphql({
      query: 'mutation { insert_node_one(object: {id: 20, path: "Top.Science.Biology"}) { id path } }',
    }, reader('Top.Science'));
    expect(inserted.json).toEqual({ data: { insert_node_one: { id: 20, path: 'Top.Science.Biology' } } });
    const refused = await engine.graphql({ query: 'mutation { insert_node_one(object: {id: 21, path: "Top.Art"}) { id } }' }, reader('Top'));
    expect(refused.json.errors[0].extensions.code).toBe('permission-error');
  });
});

describe('bad ltree values', () => {
  it('refuses a label path with an empty label before any SQL, as Hasura does', async () => {
    const literal = await engine.graphql({ query: '{ node(where: {path: {_ancestor: "Top..Science"}}) { id } }' });
    expect(literal.json.errors[0].extensions.code).toBe('parse-failed');
    expect(literal.json.errors[0].message).toBe('Expecting label path: a sequence of zero or more labels separated by dots, for example L1.L2.L3');
    const variable = await engine.graphql({ query: 'query($p: ltree!) { node(where: {path: {_descendant: $p}}) { id } }', variables: { p: 'Top.' } });
    expect(variable.json.errors[0].extensions.code).toBe('parse-failed');
  });

  it('answers a malformed lquery or ltxtquery as a bad value (data-exception), with Postgres\' words', async () => {
    const lquery = await engine.graphql({ query: '{ node(where: {path: {_matches: "Top.*{"}}) { id } }' });
    expect(lquery.json.errors[0].extensions.code).toBe('data-exception');
    expect(lquery.json.errors[0].message).toMatch(/lquery syntax error/);
    const ltxtquery = await engine.graphql({ query: '{ node(where: {path: {_matches_fulltext: "Astro &"}}) { id } }' });
    expect(ltxtquery.json.errors[0].extensions.code).toBe('data-exception');
    const list = await engine.graphql({ query: '{ node(where: {path: {_matches_any: ["*.ok", "!!"]}}) { id } }' });
    expect(list.json.errors[0].extensions.code).toBe('data-exception');
  });
});
