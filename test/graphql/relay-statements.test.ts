import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * What the Relay API sends to Postgres (ARCHITECTURE decisions 4 and 5): one statement
 * per request however many nodes and connections it nests, and every value the client
 * sent, ids and cursors included, bound as a parameter, never written into the text.
 */
let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('Relay statements', () => {
  it('answers node, connections and nested connections with one statement', async () => {
    const run = await fixture.run(`{
      node(id: "${base64('[1, "public", "author", 1]')}") { ... on author { name articles_connection(first: 1) { edges { node { title } } } } }
      author_connection(first: 2, where: {name: {_like: "%a%"}}) { edges { cursor node { id shelves { title } } } pageInfo { hasNextPage } }
    }`, { relay: true });
    expect(run.body.errors).toEqual(undefined);
    expect(run.statements).toHaveLength(1);
  });

  it('names a table\'s connection after its GraphQL name, not its custom select field', async () => {
    const run = await fixture.run('{ shelf_connection { edges { node { title } } } }', { relay: true });
    expect(run.body.errors).toEqual(undefined);
    const custom = await fixture.run('{ shelves_connection { edges { node { title } } } }', { relay: true });
    expect(custom.body.errors?.[0]?.message).toBe("field 'shelves_connection' not found in type: 'query_root'");
  });

  it('binds the id\'s key values, the cursor\'s values and where\'s values as parameters', async () => {
    const cursor = base64('{"name" : "Brian-cursor", "id" : 2}');
    const run = await fixture.run(`{
      node(id: "${base64('[1, "public", "author", 31337]')}") { id }
      author_connection(order_by: {name: asc}, after: "${cursor}", where: {email: {_eq: "where-value"}}) { edges { cursor } }
    }`, { relay: true });
    expect(run.body).toEqual({ data: { node: null, author_connection: { edges: [] } } });
    const [statement] = run.statements;
    for (const value of ['31337', 'Brian-cursor', 'where-value']) {
      expect(statement!.text).not.toContain(value);
      expect(statement!.values).toContain(value === '31337' ? 31337 : value);
    }
  });
});
