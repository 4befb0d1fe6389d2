import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';
import { createPostgisDatabase } from '../../harness/postgis-database.js';

/**
 * Issue 19, PostgreSQL types: PostGIS `geometry` and `geography` columns over /v1/graphql,
 * as Hasura serves them: GeoJSON in (ST_GeomFromGeoJSON) and out (ST_AsGeoJSON with the
 * coordinate system), every spatial operator, `_cast` between the two, a permission
 * filter using one. PostGIS is installed into a schema of its own (`postgis`), off the
 * search_path, on the machine's PostgreSQL (test/harness/postgis-database.ts).
 */
let database: TestDatabase;
let engine: TestEngine;

const SETUP_SQL = `
  create table place (id int primary key, name text not null, geom postgis.geometry);
  insert into place values
    (1, 'point', 'SRID=4326;POINT(1 1)'),
    (2, 'square', 'SRID=4326;POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))'),
    (3, 'line', 'SRID=4326;LINESTRING(-1 1, 3 1)'),
    (4, 'far point', 'SRID=4326;POINT(10 10)'),
    (5, 'touching square', 'SRID=4326;POLYGON((2 0, 2 2, 4 2, 4 0, 2 0))'),
    (6, 'overlapping square', 'SRID=4326;POLYGON((1 1, 1 3, 3 3, 3 1, 1 1))'),
    (7, 'raised point', 'SRID=4326;POINT Z(1 1 5)'),
    (8, 'ground point', 'SRID=4326;POINT Z(1 1 0)');
  create table city (id int primary key, name text not null, location postgis.geography);
  insert into city values
    (1, 'Paris', 'SRID=4326;POINT(2.3522 48.8566)'),
    (2, 'Versailles', 'SRID=4326;POINT(2.1301 48.8049)'),
    (3, 'Lyon', 'SRID=4326;POINT(4.8357 45.764)');
  create function places_near(around postgis.geometry, radius float8) returns setof place language sql stable
    as $$ select * from place where postgis.st_dwithin(geom, around, radius) $$;
`;

const point = (x: number, y: number, z?: number) => ({ type: 'Point', coordinates: z === undefined ? [x, y] : [x, y, z] });
const polygon = (...ring: Array<[number, number]>) => ({ type: 'Polygon', coordinates: [ring] });

beforeAll(async () => {
  database = await createPostgisDatabase('postgis');
  await database.sql(SETUP_SQL);
  // The machine's server need not have wal_level=logical: subscriptions poll.
  engine = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_FEED: 'false' } });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'place' } },
      { type: 'track_table', args: { table: 'city' } },
      { type: 'track_function', args: { schema: 'public', name: 'places_near' } },
      {
        type: 'create_select_permission',
        args: { table: 'place', role: 'nearby', permission: { columns: ['id', 'name', 'geom'], filter: { geom: { _st_d_within: { distance: 1.5, from: point(0, 0) } } } } },
      },
      {
        type: 'create_select_permission',
        args: { table: 'city', role: 'nearby', permission: { columns: ['id', 'name'], filter: { location: { _st_d_within: { distance: 30000, from: point(2.3522, 48.8566) } } } } },
      },
    ],
  });
  expect(setup.json).toEqual(Array(5).fill({ message: 'success' }));
}, 300_000);

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
});

async function placeIds(operator: string, value: unknown, among?: number[]): Promise<number[]> {
  const where = { geom: { [operator]: value }, ...(among === undefined ? {} : { id: { _in: among } }) };
  const answer = await engine.graphql({ query: 'query($where: place_bool_exp!) { place(where: $where, order_by: {id: asc}) { id } }', variables: { where } });
  expect(answer.json.errors, answer.text).toBeUndefined();
  return (answer.json.data.place as Array<{ id: number }>).map((row) => row.id);
}

describe('geometry operators', () => {
  it('_st_contains', async () => {
    expect(await placeIds('_st_contains', point(1.5, 0.5))).toEqual([2]);
  });
  it('_st_crosses', async () => {
    expect(await placeIds('_st_crosses', { type: 'LineString', coordinates: [[-1, 0.5], [5, 0.5]] })).toEqual([2, 5]);
  });
  it('_st_equals ignores the ring\'s direction', async () => {
    expect(await placeIds('_st_equals', polygon([0, 0], [2, 0], [2, 2], [0, 2], [0, 0]))).toEqual([2]);
  });
  it('_st_intersects', async () => {
    expect(await placeIds('_st_intersects', point(2, 1))).toEqual([2, 3, 5, 6]);
  });
  it('_st_overlaps', async () => {
    expect(await placeIds('_st_overlaps', polygon([1, 1], [1, 5], [5, 5], [5, 1], [1, 1]))).toEqual([2, 5]);
  });
  it('_st_touches', async () => {
    expect(await placeIds('_st_touches', polygon([0, 0], [0, 2], [2, 2], [2, 0], [0, 0]))).toEqual([5]);
  });
  it('_st_within', async () => {
    expect(await placeIds('_st_within', polygon([-0.5, -0.5], [-0.5, 2.5], [2.5, 2.5], [2.5, -0.5], [-0.5, -0.5]))).toEqual([1, 2, 7, 8]);
  });
  it('_st_d_within', async () => {
    expect(await placeIds('_st_d_within', { distance: 1.5, from: point(11, 11) })).toEqual([4]);
  });
  it('_st_3d_d_within and _st_3d_intersects measure the third dimension', async () => {
    const raised = [7, 8];
    expect(await placeIds('_st_3d_d_within', { distance: 0.5, from: point(1, 1, 5.2) }, raised)).toEqual([7]);
    expect(await placeIds('_st_d_within', { distance: 0.5, from: point(1, 1, 5.2) }, raised)).toEqual([7, 8]);
    expect(await placeIds('_st_3d_intersects', point(1, 1, 5), raised)).toEqual([7]);
    expect(await placeIds('_st_intersects', point(1, 1, 5), raised)).toEqual([7, 8]);
  });
  it('operands written in the document, and _eq / _in on geometry', async () => {
    const answer = await engine.graphql({
      query: '{ place(where: {geom: {_st_contains: {type: "Point", coordinates: [1.5, 0.5]}}}) { id } same: place(where: {geom: {_eq: {type: "Point", coordinates: [10, 10]}}}) { id } listed: place(where: {geom: {_in: [{type: "Point", coordinates: [1, 1]}]}}) { id } }',
    });
    expect(answer.json).toEqual({ data: { place: [{ id: 2 }], same: [{ id: 4 }], listed: [{ id: 1 }] } });
  });
  it('takes a GeoJSON literal with variables inside', async () => {
    const answer = await engine.graphql({ query: 'query($x: Float!) { place(where: {geom: {_st_contains: {type: "Point", coordinates: [$x, 0.5]}}}) { id } }', variables: { x: 1.5 } });
    expect(answer.json).toEqual({ data: { place: [{ id: 2 }] } });
  });
  it('_cast: {geography: ...} compares a geometry as a geography, in metres', async () => {
    expect(await placeIds('_cast', { geography: { _st_d_within: { distance: 200000, from: point(11, 11) } } })).toEqual([4]);
  });
});

describe('geography operators', () => {
  async function cityIds(where: unknown): Promise<number[]> {
    const answer = await engine.graphql({ query: 'query($where: city_bool_exp!) { city(where: $where, order_by: {id: asc}) { id } }', variables: { where } });
    expect(answer.json.errors, answer.text).toBeUndefined();
    return (answer.json.data.city as Array<{ id: number }>).map((row) => row.id);
  }

  it('_st_d_within takes metres, on the spheroid unless use_spheroid is false', async () => {
    expect(await cityIds({ location: { _st_d_within: { distance: 20000, from: point(2.3522, 48.8566) } } })).toEqual([1, 2]);
    expect(await cityIds({ location: { _st_d_within: { distance: 20000, from: point(2.3522, 48.8566), use_spheroid: false } } })).toEqual([1, 2]);
    expect(await cityIds({ location: { _st_d_within: { distance: 1000, from: point(2.3522, 48.8566) } } })).toEqual([1]);
  });
  it('_st_intersects', async () => {
    expect(await cityIds({ location: { _st_intersects: polygon([4, 45], [4, 46], [5, 46], [5, 45], [4, 45]) } })).toEqual([3]);
  });
  it('_cast: {geometry: ...} compares a geography as a geometry', async () => {
    expect(await cityIds({ location: { _cast: { geometry: { _st_within: polygon([2, 48], [2, 49], [3, 49], [3, 48], [2, 48]) } } } })).toEqual([1, 2]);
  });
});

describe('GeoJSON in and out', () => {
  it('answers geometry and geography as GeoJSON with their coordinate system, as Hasura does', async () => {
    const answer = await engine.graphql({ query: '{ place_by_pk(id: 1) { geom } city(where: {id: {_eq: 3}}) { location } }' });
    const crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } };
    expect(answer.json).toEqual({ data: { place_by_pk: { geom: { type: 'Point', crs, coordinates: [1, 1] } }, city: [{ location: { type: 'Point', crs, coordinates: [4.8357, 45.764] } }] } });
  });

  it('inserts and updates GeoJSON, and returns it', async () => {
    const inserted = await engine.graphql({
      query: 'mutation($geom: geometry!) { insert_place_one(object: {id: 20, name: "new", geom: $geom}) { id geom } }',
      variables: { geom: polygon([5, 5], [5, 6], [6, 6], [5, 5]) },
    });
    expect(inserted.json.errors, inserted.text).toBeUndefined();
    expect(inserted.json.data.insert_place_one.geom.coordinates).toEqual([[[5, 5], [5, 6], [6, 6], [5, 5]]]);
    const updated = await engine.graphql({ query: 'mutation { update_place_by_pk(pk_columns: {id: 20}, _set: {geom: {type: "Point", coordinates: [7, 7]}}) { geom } }' });
    expect(updated.json.data.update_place_by_pk.geom.coordinates).toEqual([7, 7]);
    const stored = await database.sql('select postgis.st_astext(geom) as text, postgis.st_srid(geom) as srid from place where id = 20');
    expect(stored.rows).toEqual([{ text: 'POINT(7 7)', srid: 4326 }]);
    const city = await engine.graphql({ query: 'mutation { insert_city_one(object: {id: 9, name: "Nice", location: {type: "Point", coordinates: [7.262, 43.7102]}}) { location } }' });
    expect(city.json.data.insert_city_one.location.coordinates).toEqual([7.262, 43.7102]);
  });

  it('passes GeoJSON to a tracked function\'s geometry argument', async () => {
    const answer = await engine.graphql({ query: '{ places_near(args: {around: {type: "Point", coordinates: [10, 9]}, radius: 1.5}) { id name } }' });
    expect(answer.json).toEqual({ data: { places_near: [{ id: 4, name: 'far point' }] } });
  });

  it('refuses malformed GeoJSON before any SQL, with parse-failed', async () => {
    const literal = await engine.graphql({ query: '{ place(where: {geom: {_st_contains: {type: "Circle", coordinates: [1, 1]}}}) { id } }' });
    expect(literal.json.errors[0].extensions.code).toBe('parse-failed');
    expect(literal.json.errors[0].message).toBe('unexpected geometry type: Circle');
    const ring = await placeIds('_st_within', polygon([0, 0], [0, 1], [1, 1], [1, 0])).catch((error: Error) => error);
    expect(String(ring)).toMatch(/first and last positions/);
    const variable = await engine.graphql({ query: 'query($g: geometry!) { place(where: {geom: {_st_intersects: $g}}) { id } }', variables: { g: { type: 'Point', coordinates: [1] } } });
    expect(variable.json.errors[0].extensions.code).toBe('parse-failed');
    const insert = await engine.graphql({ query: 'mutation { insert_place_one(object: {id: 30, name: "bad", geom: "POINT(1 1)"}) { id } }' });
    expect(insert.json.errors[0].extensions.code).toBe('parse-failed');
  });
});

describe('a role whose permission filter uses a spatial operator', () => {
  it('reads only the rows within the distance', async () => {
    const answer = await engine.graphql({ query: '{ place(order_by: {id: asc}) { id } city { name } }' }, { 'x-service-role': 'nearby' });
    expect(answer.json).toEqual({ data: { place: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 6 }, { id: 7 }, { id: 8 }], city: [{ name: 'Paris' }, { name: 'Versailles' }] } });
    const narrowed = await engine.graphql({ query: '{ place(where: {geom: {_st_intersects: {type: "Point", coordinates: [2, 1]}}}, order_by: {id: asc}) { id } }' }, { 'x-service-role': 'nearby' });
    expect(narrowed.json).toEqual({ data: { place: [{ id: 2 }, { id: 3 }, { id: 6 }] } });
  });
});

describe('the v1 data API', () => {
  it('filters with a spatial operator and answers GeoJSON', async () => {
    const answer = await engine.query({ type: 'select', args: { table: 'place', columns: ['id', 'geom'], where: { geom: { _st_contains: point(1.5, 0.5) } } } });
    expect(answer.json).toEqual([{ id: 2, geom: { type: 'Polygon', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } }, coordinates: [[[0, 0], [0, 2], [2, 2], [2, 0], [0, 0]]] } }]);
  });

  it('inserts GeoJSON and returns it', async () => {
    const answer = await engine.query({ type: 'insert', args: { table: 'place', objects: [{ id: 40, name: 'v1', geom: point(3, 3) }], returning: ['geom'] } });
    expect(answer.json).toEqual({ affected_rows: 1, returning: [{ geom: { type: 'Point', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } }, coordinates: [3, 3] } }] });
  });
});

describe('GeoJSON in permissions', () => {
  it('refuses a permission whose filter holds malformed GeoJSON when it is created', async () => {
    const refused = await engine.query({
      type: 'create_select_permission',
      args: { table: 'city', role: 'broken', permission: { columns: ['id'], filter: { location: { _st_d_within: { distance: 1, from: { type: 'Point', coordinates: [1] } } } } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/a position needs 2 to 4 numbers/);
  });
});

describe('the schema', () => {
  it('names the comparison and input types as Hasura does', async () => {
    const answer = await engine.graphql({
      query: `{
        geometry: __type(name: "geometry_comparison_exp") { inputFields { name type { name ofType { name } } } }
        geography: __type(name: "geography_comparison_exp") { inputFields { name } }
        within: __type(name: "st_d_within_geography_input") { inputFields { name defaultValue type { name ofType { name } } } }
      }`,
    });
    const geometry = Object.fromEntries((answer.json.data.geometry.inputFields as Array<{ name: string; type: { name: string | null; ofType: { name: string } | null } }>).map((field) => [field.name, field.type.name ?? field.type.ofType?.name]));
    expect(geometry).toMatchObject({
      _cast: 'geometry_cast_exp', _eq: 'geometry', _st_3d_d_within: 'st_d_within_input', _st_3d_intersects: 'geometry', _st_contains: 'geometry', _st_crosses: 'geometry',
      _st_d_within: 'st_d_within_input', _st_equals: 'geometry', _st_intersects: 'geometry', _st_overlaps: 'geometry', _st_touches: 'geometry', _st_within: 'geometry',
    });
    expect((answer.json.data.geography.inputFields as Array<{ name: string }>).map((field) => field.name)).toEqual(
      ['_cast', '_eq', '_gt', '_gte', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin', '_st_d_within', '_st_intersects'],
    );
    expect(answer.json.data.within.inputFields).toEqual([
      { name: 'distance', defaultValue: null, type: { name: null, ofType: { name: 'Float' } } },
      { name: 'from', defaultValue: null, type: { name: null, ofType: { name: 'geography' } } },
      { name: 'use_spheroid', defaultValue: 'true', type: { name: 'Boolean', ofType: null } },
    ]);
  });
});
