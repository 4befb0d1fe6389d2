import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { startTestEngine, type TestEngine } from '../harness/engine.js';

/**
 * Enum tables (`is_enum`) end to end over HTTP, after Hasura's suite
 * (server/tests-py/queries/v1/set_table_is_enum and graphql_query/enums): a table of
 * values becomes the GraphQL enum `<table>_enum` of the columns that reference it.
 */
let db: TestDatabase;
let engine: TestEngine;

const gql = async (query: string, variables?: Record<string, unknown>) => (await engine.graphql({ query, variables })).json;
const ok = async (body: unknown) => {
  const result = await engine.query(body);
  expect(result.json).toEqual({ message: 'success' });
};

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql(`
    create table colors (value text primary key, comment text);
    insert into colors values ('red', '#FF0000'), ('purple', '#7F00FF'), ('green', '#00FF00'), ('blue', '#0000FF'), ('yellow', '#FFFF00');
    create table weekdays (value text primary key);
    insert into weekdays values ('monday'), ('tuesday'), ('wednesday'), ('thursday'), ('friday'), ('saturday'), ('sunday');
    create table employees (id integer primary key, name text not null, favorite_color text references colors, gets_paid_on text not null references weekdays);
    insert into employees values (1, 'Alyssa', 'red', 'friday'), (2, 'Ben', 'blue', 'monday'), (3, 'Cy', null, 'friday');
    create table nothing (value text primary key);
    create table badnames (value text primary key);
    insert into badnames values ('fine'), ('not+ok'), ('true'), ('1st');
    create table wide (id integer primary key, a text, b integer);
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
});

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

beforeEach(async () => {
  await engine.query({ type: 'clear_metadata', args: {} });
  const tracked = await engine.query({ type: 'bulk', args: ['colors', 'weekdays', 'employees', 'nothing', 'badnames', 'wide'].map((name) => ({ type: 'track_table', args: { name } })) });
  expect(tracked.status).toBe(200);
});

async function markEnums() {
  await ok({ type: 'set_table_is_enum', args: { table: 'colors', is_enum: true } });
  await ok({ type: 'set_table_is_enum', args: { table: { schema: 'public', name: 'weekdays' }, is_enum: true } });
}

describe('set_table_is_enum', () => {
  it('turns the rows into the enum `<table>_enum`, sorted, described by the comment column, typing the columns that reference it', async () => {
    await markEnums();
    const data = (await gql(`{
      colors: __type(name: "colors_enum") { name kind enumValues { name description } }
      weekdays: __type(name: "weekdays_enum") { enumValues { name description } }
      employees: __type(name: "employees") { fields { name type { name ofType { name } } } }
      comparison: __type(name: "colors_enum_comparison_exp") { inputFields { name type { name kind ofType { ofType { name } } } } }
    }`)).data;
    expect(data.colors).toEqual({
      name: 'colors_enum',
      kind: 'ENUM',
      enumValues: [
        { name: 'blue', description: '#0000FF' }, { name: 'green', description: '#00FF00' }, { name: 'purple', description: '#7F00FF' },
        { name: 'red', description: '#FF0000' }, { name: 'yellow', description: '#FFFF00' },
      ],
    });
    expect(data.weekdays.enumValues.map((value: { name: string }) => value.name)).toEqual(['friday', 'monday', 'saturday', 'sunday', 'thursday', 'tuesday', 'wednesday']);
    expect(data.weekdays.enumValues[0].description).toBeNull();
    const types = Object.fromEntries(data.employees.fields.map((field: any) => [field.name, field.type.name ?? field.type.ofType.name]));
    expect(types).toEqual({ id: 'Int', name: 'String', favorite_color: 'colors_enum', gets_paid_on: 'weekdays_enum' });
    expect(data.comparison.inputFields.map((field: any) => field.name)).toEqual(['_eq', '_in', '_is_null', '_neq', '_nin']);
    expect(data.comparison.inputFields.find((field: any) => field.name === '_in').type.ofType.ofType.name).toBe('colors_enum');
  });

  it('filters, orders, inserts and updates through the enum, literal or variable; the enum table stays a table', async () => {
    await markEnums();
    expect(await gql('{ employees(where: {favorite_color: {_eq: red}}) { name favorite_color gets_paid_on } }')).toEqual({
      data: { employees: [{ name: 'Alyssa', favorite_color: 'red', gets_paid_on: 'friday' }] },
    });
    expect(await gql('query ($days: [weekdays_enum!]) { employees(where: {gets_paid_on: {_in: $days}}, order_by: {id: asc}) { id } }', { days: ['friday'] })).toEqual({
      data: { employees: [{ id: 1 }, { id: 3 }] },
    });
    expect(await gql('{ employees(where: {_or: [{favorite_color: {_neq: red}}, {favorite_color: {_is_null: true}}]}, order_by: {favorite_color: desc_nulls_last}) { id } }')).toEqual({
      data: { employees: [{ id: 2 }, { id: 3 }] },
    });
    expect(await gql('{ employees(where: {favorite_color: {_nin: [red, blue]}}) { id } }')).toEqual({ data: { employees: [] } });
    const inserted = await gql('mutation { insert_employees_one(object: {id: 4, name: "Dee", favorite_color: green, gets_paid_on: sunday}) { id favorite_color gets_paid_on } }');
    expect(inserted).toEqual({ data: { insert_employees_one: { id: 4, favorite_color: 'green', gets_paid_on: 'sunday' } } });
    const updated = await gql('mutation ($color: colors_enum) { update_employees(where: {id: {_eq: 4}}, _set: {favorite_color: $color}) { returning { favorite_color } } }', { color: 'yellow' });
    expect(updated).toEqual({ data: { update_employees: { returning: [{ favorite_color: 'yellow' }] } } });
    expect(await gql('{ colors(where: {value: {_like: "r%"}}) { value comment } }')).toEqual({ data: { colors: [{ value: 'red', comment: '#FF0000' }] } });
    await db.sql('delete from employees where id = 4');
  });

  it('refuses values outside the enum, strings in its place, and text operators on it', async () => {
    await markEnums();
    const outside = await gql('{ employees(where: {favorite_color: {_eq: orange}}) { id } }');
    expect(outside.errors[0].extensions.code).toBe('validation-failed');
    const string = await gql('mutation { insert_employees_one(object: {id: 5, name: "E", gets_paid_on: "friday"}) { id } }');
    expect(string.errors[0].extensions.code).toBe('validation-failed');
    const variable = await gql('query ($c: colors_enum) { employees(where: {favorite_color: {_eq: $c}}) { id } }', { c: 'orange' });
    expect(variable.errors[0].extensions.code).toBe('validation-failed');
    const like = await gql('{ employees(where: {favorite_color: {_like: "r%"}}) { id } }');
    expect(like.errors[0].extensions.code).toBe('validation-failed');
    expect((await engine.query({ type: 'select', args: { table: 'employees', columns: ['id'], where: { favorite_color: 'red' } } })).json).toEqual([{ id: 1 }]);
  });

  it('filters permissions by enum values, and refuses text operators on an enum column there', async () => {
    await markEnums();
    await ok({ type: 'create_select_permission', args: { table: 'employees', role: 'user', permission: { columns: ['id', 'favorite_color'], filter: { favorite_color: { _in: ['red', 'blue'] } } } } });
    const rows = await engine.graphql({ query: '{ employees(order_by: {id: asc}) { id favorite_color } }' }, { 'x-service-role': 'user' });
    expect(rows.json).toEqual({ data: { employees: [{ id: 1, favorite_color: 'red' }, { id: 2, favorite_color: 'blue' }] } });
    const like = await engine.query({ type: 'create_select_permission', args: { table: 'employees', role: 'other', permission: { columns: ['id'], filter: { favorite_color: { _like: 'r%' } } } } });
    expect(like.status).toBe(400);
    expect(like.json.error).toContain('unknown operator "_like" for a column of type "colors_enum"');
  });

  it('leaves enum columns out of min and max, as Hasura does', async () => {
    await markEnums();
    const fields = (await gql('{ __type(name: "employees_max_fields") { fields { name } } }')).data.__type.fields.map((field: any) => field.name);
    expect(fields).toEqual(['id', 'name']);
  });

  it('is_enum false makes the table plain again; export and replace_metadata carry is_enum', async () => {
    await markEnums();
    const exported = (await engine.query({ type: 'export_metadata', args: {} })).json;
    const colors = exported.sources[0].tables.find((entry: any) => entry.table.name === 'colors');
    expect(colors).toEqual({ table: { schema: 'public', name: 'colors' }, is_enum: true });
    await ok({ type: 'set_table_is_enum', args: { table: 'colors', is_enum: false } });
    expect((await gql('{ __type(name: "colors_enum") { name } }')).data.__type).toBeNull();
    const type = (await gql('{ __type(name: "employees") { fields { name type { name } } } }')).data.__type.fields.find((field: any) => field.name === 'favorite_color');
    expect(type.type.name).toBe('String');
    expect((await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables.find((entry: any) => entry.table.name === 'colors')).toEqual({ table: { schema: 'public', name: 'colors' } });
    expect((await engine.query({ type: 'replace_metadata', args: exported })).json).toEqual({ message: 'success' });
    expect((await gql('{ __type(name: "colors_enum") { name } }')).data.__type).toEqual({ name: 'colors_enum' });
  });

  it('track_table takes is_enum, on /v1/query and as pg_track_table on /v1/metadata; pg_set_table_is_enum works there too', async () => {
    await engine.query({ type: 'clear_metadata', args: {} });
    const viaMetadata = await fetch(`${engine.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'pg_track_table', args: { source: 'default', table: 'colors', is_enum: true } }),
    });
    expect(await viaMetadata.json()).toEqual({ message: 'success' });
    await ok({ type: 'track_table', version: 2, args: { table: 'weekdays', is_enum: true, configuration: { custom_name: 'days' } } });
    await ok({ type: 'track_table', args: { name: 'employees' } });
    const days = (await gql('{ __type(name: "days_enum") { name } }')).data.__type;
    expect(days).toEqual({ name: 'days_enum' });
    const set = await fetch(`${engine.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'pg_set_table_is_enum', args: { source: 'default', table: 'colors', is_enum: false } }),
    });
    expect(await set.json()).toEqual({ message: 'success' });
    expect((await gql('{ __type(name: "colors_enum") { name } }')).data.__type).toBeNull();
  });
});

describe('tables that cannot be enums', () => {
  it('refuses them with constraint-violation and Hasura\'s reasons', async () => {
    const refused = async (table: string, error: string) => {
      const result = await engine.query({ type: 'set_table_is_enum', args: { table, is_enum: true } });
      expect(result.status).toBe(400);
      expect(result.json).toEqual({ path: '$.args', code: 'constraint-violation', error });
    };
    await refused('employees', 'the table "employees" cannot be used as an enum for the following reasons:\n'
      + '  • the table’s primary key ("id") must have type "text", not type "integer"\n'
      + '  • the table must have exactly one primary key and optionally one comment column, not 4 columns (favorite_color, gets_paid_on, id, name)\n');
    await refused('nothing', 'the table "nothing" cannot be used as an enum because the table must have at least one row');
    await refused('badnames', 'the table "badnames" cannot be used as an enum because the values "1st", "not+ok", and "true" are not valid GraphQL enum value names');
    await refused('wide', 'the table "wide" cannot be used as an enum for the following reasons:\n'
      + '  • the table’s primary key ("id") must have type "text", not type "integer"\n'
      + '  • the table must have exactly one primary key and optionally one comment column, not 3 columns (a, b, id)\n');
    await engine.query({ type: 'untrack_table', args: { table: 'nothing' } });
    const untracked = await engine.query({ type: 'set_table_is_enum', args: { table: 'nothing', is_enum: true } });
    expect(untracked.json.code).toBe('not-exists');
    const tracked = await engine.query({ type: 'track_table', args: { name: 'nothing', is_enum: true } });
    expect(tracked.json.code).toBe('constraint-violation');
    const missing = await engine.query({ type: 'set_table_is_enum', args: { table: 'colors' } });
    expect(missing.json.code).toBe('parse-failed');
    expect((await engine.query({ type: 'export_metadata', args: {} })).json.sources[0].tables.some((entry: any) => entry.is_enum)).toBe(false);
  });

  it('rows changed by mutations show after reload_metadata; rows that cannot be enum values make the table inconsistent', async () => {
    await markEnums();
    expect((await gql('mutation { insert_colors_one(object: {value: "orange", comment: "#FFA500"}) { value } }')).data).toEqual({ insert_colors_one: { value: 'orange' } });
    expect((await gql('{ employees(where: {favorite_color: {_eq: orange}}) { id } }')).errors[0].extensions.code).toBe('validation-failed');
    await engine.query({ type: 'reload_metadata', args: {} });
    expect(await gql('{ employees(where: {favorite_color: {_eq: orange}}) { id } }')).toEqual({ data: { employees: [] } });

    await db.sql(`insert into colors values ('illegal+name', '')`);
    const reloaded = await engine.query({ type: 'reload_metadata', args: {} });
    expect(reloaded.json.is_consistent).toBe(false);
    const inconsistent = (await engine.query({ type: 'get_inconsistent_metadata', args: {} })).json;
    expect(inconsistent).toContainEqual({
      type: 'table',
      definition: { schema: 'public', name: 'colors' },
      reason: 'the table "colors" cannot be used as an enum because the value "illegal+name" is not a valid GraphQL enum value name',
    });
    expect((await gql('{ colors { value } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await gql('{ employees(where: {id: {_eq: 1}}) { favorite_color } }')).data).toEqual({ employees: [{ favorite_color: 'red' }] });
    await db.sql(`delete from colors where value in ('illegal+name', 'orange')`);
    expect((await engine.query({ type: 'reload_metadata', args: {} })).json.is_consistent).toBe(true);
    expect((await gql('{ __type(name: "colors_enum") { enumValues { name } } }')).data.__type.enumValues).toHaveLength(5);
  });
});
