import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';
import { HS_SECRET, hsKey, NAMESPACE, sign } from '../auth/fixtures.js';

/**
 * Inherited roles end to end over HTTP, after Hasura's suite
 * (server/tests-py/queries/graphql_query/permissions/inherited_roles and
 * test_inherited_roles.py): select permissions combined column by column and row by row,
 * write permissions inherited when the parents agree, explicit permissions overriding,
 * nesting, cycles and unknown parents refused.
 */
const SECRET = 'inherited-secret';
let db: TestDatabase;
let engine: TestEngine;

const as = (role: string, userId = '1') => ({ 'x-service-admin-secret': SECRET, 'x-service-role': role, 'x-service-user-id': userId });
const gql = async (role: string, query: string, userId?: string) => (await engine.graphql({ query }, as(role, userId))).json;
const run = (body: unknown) => engine.query(body);
const ok = async (body: unknown) => expect((await run(body)).json).toEqual({ message: 'success' });

const SELECT_MANAGER = { role: 'manager', permission: { columns: ['id', 'name', 'salary'], filter: { manager_id: { _eq: 'X-Service-User-Id' } }, allow_aggregations: true } };
const SELECT_STAFF = { role: 'staff', permission: { columns: ['id', 'name', 'title'], filter: {}, limit: 10 } };
const SELECT_AUDITOR = { role: 'auditor', permission: { columns: ['id', 'manager_id'], filter: { id: { _lte: 2 } } } };
const INSERT_ALIKE = { check: { manager_id: { _eq: 'X-Service-User-Id' } }, columns: ['id', 'name', 'salary', 'manager_id'] };

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table employee (id integer primary key, name text not null, salary integer not null, title text not null default 'new', manager_id integer);
    create function touch_employee(emp_id integer) returns setof employee as $$ update employee set name = name where id = emp_id returning * $$ language sql volatile;
    insert into employee select i, 'e' || i, i * 100, 't' || i, case when i <= 3 then 1 else 2 end from generate_series(1, 12) as i;
  `);
  engine = await startTestEngine({ databaseUrl: db.url, env: { SERVICE_GRAPHQL_ADMIN_SECRET: SECRET, SERVICE_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: HS_SECRET }) } });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

beforeEach(async () => {
  await run({ type: 'clear_metadata', args: {} });
  const table = 'employee';
  const setup = await run({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: table } },
      { type: 'create_select_permission', args: { table, ...SELECT_MANAGER } },
      { type: 'create_select_permission', args: { table, ...SELECT_STAFF } },
      { type: 'create_select_permission', args: { table, ...SELECT_AUDITOR } },
      { type: 'create_insert_permission', args: { table, role: 'manager', permission: INSERT_ALIKE } },
      { type: 'create_insert_permission', args: { table, role: 'staff', permission: { ...INSERT_ALIKE, columns: ['manager_id', 'salary', 'name', 'id'] } } },
      { type: 'create_update_permission', args: { table, role: 'manager', permission: { columns: ['salary'], filter: {} } } },
      { type: 'create_update_permission', args: { table, role: 'staff', permission: { columns: ['title'], filter: {} } } },
      { type: 'create_delete_permission', args: { table, role: 'manager', permission: { filter: { id: { _gt: 100 } } } } },
      { type: 'track_function', version: 2, args: { function: 'touch_employee', configuration: { exposed_as: 'mutation' } } },
      { type: 'create_function_permission', args: { function: 'touch_employee', role: 'manager' } },
      { type: 'add_inherited_role', args: { role_name: 'manager_staff', role_set: ['manager', 'staff'] } },
    ],
  });
  expect(setup.status).toBe(200);
});

describe('select permissions of an inherited role', () => {
  it('shows every row any parent may read, each column only on the rows of the parents that may read it', async () => {
    const data = (await gql('manager_staff', '{ employee(order_by: {id: asc}) { id name title salary } }')).data.employee;
    expect(data).toHaveLength(10);
    expect(data.slice(0, 5)).toEqual([
      { id: 1, name: 'e1', title: 't1', salary: 100 },
      { id: 2, name: 'e2', title: 't2', salary: 200 },
      { id: 3, name: 'e3', title: 't3', salary: 300 },
      { id: 4, name: 'e4', title: 't4', salary: null },
      { id: 5, name: 'e5', title: 't5', salary: null },
    ]);
    const other = (await gql('manager_staff', '{ employee(where: {id: {_lte: 4}}, order_by: {id: asc}) { salary } }', '2')).data.employee;
    expect(other).toEqual([{ salary: null }, { salary: null }, { salary: null }, { salary: 400 }]);
  });

  it('does not let where, order_by or aggregates see a hidden value', async () => {
    expect((await gql('manager_staff', '{ employee(where: {salary: {_gte: 300}}) { id } }')).data.employee).toEqual([{ id: 3 }]);
    const ordered = (await gql('manager_staff', '{ employee(order_by: [{salary: desc_nulls_last}, {id: asc}], limit: 3) { id } }')).data.employee;
    expect(ordered).toEqual([{ id: 3 }, { id: 2 }, { id: 1 }]);
    const sum = (await gql('manager_staff', '{ employee_aggregate { aggregate { count sum { salary } } } }')).data.employee_aggregate.aggregate;
    // Aggregates see every row the parents' filters allow, as any role's do (Hasura's
    // PermissionLimitSubQuery: the largest parent limit, staff's 10, caps nodes only); the
    // hidden salaries stay out of the sum.
    expect(sum).toEqual({ count: 12, sum: { salary: 600 } });
    expect((await gql('manager_staff', '{ employee_by_pk(id: 5) { id salary } }')).data.employee_by_pk).toEqual({ id: 5, salary: null });
  });

  it('makes a column nullable where it may be nulled, takes the largest limit and allows aggregates when a parent does', async () => {
    const salaryType = async (role: string) => (await gql(role, '{ __type(name: "employee") { fields { name type { kind name } } } }')).data.__type.fields.find((field: any) => field.name === 'salary').type;
    expect(await salaryType('manager')).toEqual({ kind: 'NON_NULL', name: null });
    expect(await salaryType('manager_staff')).toEqual({ kind: 'SCALAR', name: 'Int' });
    expect((await gql('staff', '{ employee_aggregate { aggregate { count } } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await gql('manager', '{ employee { id } }')).data.employee).toHaveLength(3);
  });

  it('an inherited role made of inherited roles combines them all; a role without permissions sees nothing', async () => {
    await ok({ type: 'add_inherited_role', args: { role_name: 'everyone', role_set: ['manager_staff', 'auditor'] } });
    const rows = (await gql('everyone', '{ employee(where: {id: {_in: [1, 2, 5]}}, order_by: {id: asc}) { id salary manager_id } }')).data.employee;
    expect(rows).toEqual([{ id: 1, salary: 100, manager_id: 1 }, { id: 2, salary: 200, manager_id: 1 }, { id: 5, salary: null, manager_id: null }]);
    expect((await gql('nobody', '{ employee { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('a select permission of the inherited role itself replaces the combination', async () => {
    await ok({ type: 'create_select_permission', args: { table: 'employee', role: 'manager_staff', permission: { columns: ['id'], filter: { id: { _eq: 7 } } } } });
    expect(await gql('manager_staff', '{ employee { id } }')).toEqual({ data: { employee: [{ id: 7 }] } });
    expect((await gql('manager_staff', '{ employee { salary } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('the v1 data API reads as GraphQL does: the same rows, nulls and hidden values', async () => {
    const select = await engine.query({ type: 'select', args: { table: 'employee', columns: ['id', 'salary'], where: { id: { _in: [1, 4] } }, order_by: ['id'] } }, as('manager_staff'));
    expect(select.json).toEqual([{ id: 1, salary: 100 }, { id: 4, salary: null }]);
    const probed = await engine.query({ type: 'count', args: { table: 'employee', where: { salary: { _gte: 400 } } } }, as('manager_staff'));
    expect(probed.json, JSON.stringify(probed.json)).toEqual({ count: 0 });
    const inserted = await engine.query({ type: 'insert', args: { table: 'employee', objects: [{ id: 103, name: 'n', salary: 7, manager_id: 1 }], returning: ['id', 'salary'] } }, as('manager_staff'));
    expect(inserted.json).toEqual({ affected_rows: 1, returning: [{ id: 103, salary: 7 }] });
    await db.sql('delete from employee where id = 103');
  });

  it('serves a JWT whose allowed roles hold the inherited role', async () => {
    const token = await sign({ [NAMESPACE]: { 'x-service-allowed-roles': ['manager_staff'], 'x-service-default-role': 'manager_staff', 'x-service-user-id': '1' } }, hsKey());
    const result = await engine.graphql({ query: '{ employee(where: {id: {_in: [1, 4]}}, order_by: {id: asc}) { id salary } }' }, { authorization: `Bearer ${token}` });
    expect(result.json).toEqual({ data: { employee: [{ id: 1, salary: 100 }, { id: 4, salary: null }] } });
  });
});

describe('write permissions of an inherited role', () => {
  it('inherits an insert both parents define alike and a delete one parent defines; update, on which they differ, is withheld and reported', async () => {
    const inserted = await gql('manager_staff', 'mutation { insert_employee_one(object: {id: 101, name: "n", salary: 5, manager_id: 1}) { id salary } }');
    expect(inserted).toEqual({ data: { insert_employee_one: { id: 101, salary: 5 } } });
    const refused = await gql('manager_staff', 'mutation { insert_employee_one(object: {id: 102, name: "n", salary: 5, manager_id: 2}) { id } }');
    expect(refused.errors[0].extensions.code).toBe('permission-error');
    expect((await gql('manager_staff', 'mutation { delete_employee(where: {}) { affected_rows } }')).data.delete_employee.affected_rows).toBe(1);
    const update = await gql('manager_staff', 'mutation { update_employee(where: {}, _set: {salary: 1}) { affected_rows } }');
    expect(update.errors[0].extensions.code).toBe('validation-failed');
    const inconsistent = (await run({ type: 'get_inconsistent_metadata', args: {} })).json;
    expect(inconsistent).toEqual([{
      type: 'inherited role permission inconsistency',
      reason: "Could not inherit permission for the role 'manager_staff' for the entity: 'update permission, table: employee, source: 'default''",
      name: 'manager_staff',
      entity: { permission_type: 'update', source: 'default', table: 'employee' },
    }]);
  });

  it('may call a function any parent may call', async () => {
    expect(await gql('manager_staff', 'mutation { touch_employee(args: {emp_id: 4}) { id salary } }')).toEqual({ data: { touch_employee: [{ id: 4, salary: null }] } });
    expect((await gql('staff', 'mutation { touch_employee(args: {emp_id: 4}) { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('an update permission of the inherited role itself ends the conflict', async () => {
    await ok({ type: 'create_update_permission', args: { table: 'employee', role: 'manager_staff', permission: { columns: ['title'], filter: { id: { _eq: 12 } } } } });
    expect((await run({ type: 'get_inconsistent_metadata', args: {} })).json).toEqual([]);
    const update = await gql('manager_staff', 'mutation { update_employee(where: {}, _set: {title: "x"}) { affected_rows returning { id title salary } } }');
    expect(update).toEqual({ data: { update_employee: { affected_rows: 1, returning: [{ id: 12, title: 'x', salary: null }] } } });
    await db.sql(`update employee set title = 't12' where id = 12`);
  });
});

describe('add_inherited_role and drop_inherited_role', () => {
  it('refuses a role in its own set, unknown parents, cycles, admin, and dropping a role that is not there', async () => {
    const self = await run({ type: 'add_inherited_role', args: { role_name: 'x', role_set: ['x', 'staff'] } });
    expect(self.json).toEqual({ path: '$.args', code: 'invalid-params', error: 'an inherited role name cannot be in the role combination' });
    const unknown = await run({ type: 'add_inherited_role', args: { role_name: 'x', role_set: ['staff', 'ghost', 'spirit'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: 'invalid-configuration', error: 'Inconsistent object: the following parent role(s) are not found: ghost, spirit which are required to construct the inherited role: "x"' });
    await ok({ type: 'add_inherited_role', args: { role_name: 'a', role_set: ['staff'] } });
    await ok({ type: 'add_inherited_role', args: { role_name: 'b', role_set: ['a'] } });
    const cycle = await run({ type: 'add_inherited_role', args: { role_name: 'a', role_set: ['b'] } });
    expect(cycle.json).toEqual({ path: '$.args', code: 'cyclic-dependency', error: 'found cycle(s) in roles: ["a","b","a"]' });
    expect((await run({ type: 'add_inherited_role', args: { role_name: 'admin', role_set: ['staff'] } })).json.code).toBe('not-supported');
    expect((await run({ type: 'add_inherited_role', args: { role_name: '', role_set: ['staff'] } })).json.code).toBe('parse-failed');
    expect((await run({ type: 'add_inherited_role', args: { role_name: 'c' } })).json.code).toBe('parse-failed');
    const missing = await run({ type: 'drop_inherited_role', args: { role_name: 'zzz' } });
    expect(missing.json).toEqual({ path: '$.args', code: 'not-exists', error: '"zzz" inherited role doesn\'t exist' });
  });

  it('export, replace_metadata and clear_metadata carry inherited_roles; drop takes the role away; /v1/metadata names them alike', async () => {
    // Hasura's replace_metadata refuses metadata whose inherited permissions conflict.
    const conflicting = await run({ type: 'replace_metadata', args: (await run({ type: 'export_metadata', args: {} })).json });
    expect(conflicting.json).toMatchObject({ code: 'unexpected', error: 'cannot continue due to inconsistent metadata' });
    await ok({ type: 'drop_update_permission', args: { table: 'employee', role: 'staff' } });
    const exported = (await run({ type: 'export_metadata', args: {} })).json;
    expect(exported.inherited_roles).toEqual([{ role_name: 'manager_staff', role_set: ['manager', 'staff'] }]);
    await ok({ type: 'drop_inherited_role', args: { role_name: 'manager_staff' } });
    expect((await gql('manager_staff', '{ employee { id } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await run({ type: 'export_metadata', args: {} })).json.inherited_roles).toBeUndefined();
    expect((await run({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect((await gql('manager_staff', '{ employee(where: {id: {_eq: 1}}) { salary } }')).data.employee).toEqual([{ salary: 100 }]);
    const cyclic = { ...exported, inherited_roles: [...exported.inherited_roles, { role_name: 'p', role_set: ['q'] }, { role_name: 'q', role_set: ['p'] }] };
    expect((await run({ type: 'replace_metadata', args: cyclic })).json.code).toBe('cyclic-dependency');
    const metadataApi = await fetch(`${engine.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-admin-secret': SECRET },
      body: JSON.stringify({ type: 'drop_inherited_role', args: { role_name: 'manager_staff' } }),
    });
    expect(await metadataApi.json()).toEqual({ message: 'success' });
    await ok({ type: 'add_inherited_role', args: { role_name: 'manager_staff', role_set: ['manager', 'staff'] } });
    await ok({ type: 'clear_metadata', args: {} });
    expect((await run({ type: 'export_metadata', args: {} })).json.inherited_roles).toBeUndefined();
  });
});
