import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { admin, resetRows, setupMutationFixture, type MutationFixture } from './fixture.js';

/**
 * backend_only insert/update/delete permissions (compat-facts 3.2, Hasura's "backend
 * only" mutations): offered only to a request that carries the admin secret and
 * `X-Service-Use-Backend-Only-Permissions: true`; such a request keeps the role's other
 * permissions. Role `worker` here: backend-only insert and update on author, a plain delete.
 */
let fixture: MutationFixture;
beforeAll(async () => {
  fixture = await setupMutationFixture();
  const setup = await fixture.engine.query({
    type: 'bulk',
    args: [
      { type: 'create_select_permission', args: { table: 'author', role: 'worker', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'author', role: 'worker', permission: { check: {}, columns: ['name'], set: { owner_id: 'X-Service-User-Id' }, backend_only: true } } },
      { type: 'create_update_permission', args: { table: 'author', role: 'worker', permission: { columns: ['name'], filter: {}, backend_only: true } } },
      { type: 'create_delete_permission', args: { table: 'author', role: 'worker', permission: { filter: { id: { _eq: 2 } } } } },
    ],
  });
  expect(setup.status).toBe(200);
});
afterAll(async () => {
  await fixture?.close();
});
beforeEach(async () => {
  await resetRows(fixture);
});

const worker = { ...admin, 'x-service-role': 'worker', 'x-service-user-id': '9' };
const backend = { ...worker, 'x-service-use-backend-only-permissions': 'true' };
const insert = 'mutation { insert_author_one(object: {name: "Zed"}) { id name } }';
const notFound = (field: string) => ({ errors: [{ message: `field '${field}' not found in type: 'mutation_root'`, extensions: { path: `$.selectionSet.${field}`, code: 'validation-failed' } }] });

describe('a backend_only permission', () => {
  it('is not offered without the header, nor with the header false', async () => {
    expect((await fixture.gql(insert, worker)).json).toEqual(notFound('insert_author_one'));
    expect((await fixture.gql(insert, { ...worker, 'x-service-use-backend-only-permissions': 'false' })).json).toEqual(notFound('insert_author_one'));
    expect((await fixture.gql('mutation { update_author(where: {}, _set: {name: "x"}) { affected_rows } }', worker)).json).toEqual(notFound('update_author'));
    expect(await fixture.rows('select count(*)::int as n from author')).toEqual([{ n: 2 }]);
  });

  it('is offered with the admin secret and the header, presets applied, and writes', async () => {
    const result = await fixture.gql(insert, backend);
    expect(result.json).toEqual({ data: { insert_author_one: { id: 3, name: 'Zed' } } });
    const updated = await fixture.gql('mutation { update_author_by_pk(pk_columns: {id: 1}, _set: {name: "Ada B."}) { name } }', backend);
    expect(updated.json).toEqual({ data: { update_author_by_pk: { name: 'Ada B.' } } });
    expect(await fixture.rows('select id, name, owner_id from author order by id')).toEqual([
      { id: 1, name: 'Ada B.', owner_id: '1' },
      { id: 2, name: 'Brian', owner_id: '2' },
      { id: 3, name: 'Zed', owner_id: '9' },
    ]);
  });

  it('leaves the role its other permissions in both kinds of request', async () => {
    await fixture.db.sql('delete from article');
    const frontend = await fixture.gql('mutation { delete_author(where: {}) { affected_rows } }', worker);
    expect(frontend.json).toEqual({ data: { delete_author: { affected_rows: 1 } } });
    const backendDelete = await fixture.gql('mutation { delete_author(where: {}) { affected_rows } }', backend);
    expect(backendDelete.json).toEqual({ data: { delete_author: { affected_rows: 0 } } });
    expect((await fixture.rows('select id from author order by id')).map((row) => row.id)).toEqual([1]);
  });

  it('is decided per request: the same query text is refused, served, then refused again', async () => {
    const text = 'mutation Same { insert_author(objects: [{name: "Yan"}]) { affected_rows } }';
    expect((await fixture.gql(text, worker)).json).toEqual(notFound('insert_author'));
    expect((await fixture.gql(text, backend)).json).toEqual({ data: { insert_author: { affected_rows: 1 } } });
    expect((await fixture.gql(text, worker)).json).toEqual(notFound('insert_author'));
    expect((await fixture.rows("select count(*)::int as n from author where name = 'Yan'"))).toEqual([{ n: 1 }]);
  });
});
