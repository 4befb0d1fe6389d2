import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../harness/database.js';
import { startTestEngine, type TestEngine } from '../../harness/engine.js';
import { createPostgisDatabase } from '../../harness/postgis-database.js';

/**
 * Issue 19, PostgreSQL types: PostGIS `raster` columns (extension `postgis_raster`) over
 * /v1/graphql with Hasura's operators `_st_intersects_rast`, `_st_intersects_nband_geom`
 * and `_st_intersects_geom_nband`. A raster goes in and comes out as the hexadecimal text
 * of its well-known binary, as in Hasura.
 */
let database: TestDatabase;
let engine: TestEngine;

/** A one-band 2x2 raster whose upper-left corner is (x, y), pixels of 1 unit, in EPSG:4326. */
const tile = (x: number, y: number) => `st_addband(st_makeemptyraster(2, 2, ${x}, ${y}, 1, -1, 0, 0, 4326), '8BUI'::text, 1, 0)`;
const point = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] });
let probeHex: string;
let firstHex: string;

beforeAll(async () => {
  // In `public`: some of postgis_raster's own SQL functions name its types unqualified.
  database = await createPostgisDatabase();
  await database.sql(`
    create table tile (id int primary key, rast raster);
    insert into tile values (1, ${tile(0, 2)}), (2, ${tile(10, 12)});
  `);
  probeHex = (await database.sql(`select (${tile(1, 3)})::text as hex`)).rows[0].hex as string;
  firstHex = (await database.sql('select rast::text as hex from tile where id = 1')).rows[0].hex as string;
  engine = await startTestEngine({ databaseUrl: database.url, env: { SERVICE_GRAPHQL_LIVE_QUERIES_CHANGE_FEED: 'false' } });
  const setup = await engine.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'tile' } },
      {
        type: 'create_select_permission',
        args: { table: 'tile', role: 'origin', permission: { columns: ['id', 'rast'], filter: { rast: { _st_intersects_geom_nband: { geommin: point(1, 1) } } } } },
      },
    ],
  });
  expect(setup.json).toEqual(Array(2).fill({ message: 'success' }));
}, 300_000);

afterAll(async () => {
  await engine?.stop();
  await database?.drop();
});

async function tileIds(where: unknown, headers?: Record<string, string>): Promise<number[]> {
  const answer = await engine.graphql({ query: 'query($where: tile_bool_exp!) { tile(where: $where, order_by: {id: asc}) { id } }', variables: { where } }, headers);
  expect(answer.json.errors, answer.text).toBeUndefined();
  return (answer.json.data.tile as Array<{ id: number }>).map((row) => row.id);
}

describe('raster operators', () => {
  it('_st_intersects_rast: the column intersects the given raster', async () => {
    expect(await tileIds({ rast: { _st_intersects_rast: probeHex } })).toEqual([1]);
  });

  it('_st_intersects_geom_nband: the column intersects a geometry, in a band or any', async () => {
    expect(await tileIds({ rast: { _st_intersects_geom_nband: { geommin: point(1, 1) } } })).toEqual([1]);
    expect(await tileIds({ rast: { _st_intersects_geom_nband: { geommin: point(11, 11), nband: 1 } } })).toEqual([2]);
    expect(await tileIds({ rast: { _st_intersects_geom_nband: { geommin: point(5, 5) } } })).toEqual([]);
  });

  it('_st_intersects_nband_geom: a band of the column intersects a geometry', async () => {
    expect(await tileIds({ rast: { _st_intersects_nband_geom: { nband: 1, geommin: point(11, 11) } } })).toEqual([2]);
    const literal = await engine.graphql({ query: '{ tile(where: {rast: {_st_intersects_nband_geom: {nband: 1, geommin: {type: "Point", coordinates: [1, 1]}}}}) { id } }' });
    expect(literal.json).toEqual({ data: { tile: [{ id: 1 }] } });
  });

  it('_eq and _in compare rasters', async () => {
    expect(await tileIds({ rast: { _eq: firstHex } })).toEqual([1]);
    expect(await tileIds({ rast: { _in: [firstHex, probeHex] } })).toEqual([1]);
  });

  it('filters a role\'s rows with a raster operator', async () => {
    expect(await tileIds({}, { 'x-service-role': 'origin' })).toEqual([1]);
  });
});

describe('raster values', () => {
  it('answers a raster as the hex text of its well-known binary, and takes one back', async () => {
    const read = await engine.graphql({ query: '{ tile_by_pk(id: 1) { rast } }' });
    expect(read.json).toEqual({ data: { tile_by_pk: { rast: firstHex } } });
    const inserted = await engine.graphql({ query: 'mutation($rast: raster!) { insert_tile_one(object: {id: 3, rast: $rast}) { id } }', variables: { rast: probeHex } });
    expect(inserted.json).toEqual({ data: { insert_tile_one: { id: 3 } } });
    const stored = await database.sql('select rast::text = $1 as same from tile where id = 3', [probeHex]);
    expect(stored.rows).toEqual([{ same: true }]);
  });

  it('refuses a raster that is not hexadecimal text, with parse-failed', async () => {
    const text = await engine.graphql({ query: '{ tile(where: {rast: {_st_intersects_rast: "not hex"}}) { id } }' });
    expect(text.json.errors[0].extensions.code).toBe('parse-failed');
    expect(text.json.errors[0].message).toBe('invalid hexadecimal representation of raster well known binary format');
    const number = await engine.graphql({ query: 'query($r: raster!) { tile(where: {rast: {_eq: $r}}) { id } }', variables: { r: 12 } });
    expect(number.json.errors[0].extensions.code).toBe('parse-failed');
    expect(number.json.errors[0].message).toBe('expecting String for raster');
  });

  it('names raster_comparison_exp and its input types as Hasura does: equality, no ordering', async () => {
    const answer = await engine.graphql({
      query: `{
        raster: __type(name: "raster_comparison_exp") { inputFields { name } }
        nband: __type(name: "st_intersects_nband_geom_input") { inputFields { name type { name ofType { name } } } }
        geom: __type(name: "st_intersects_geom_nband_input") { inputFields { name type { name ofType { name } } } }
      }`,
    });
    expect(answer.json.data.raster.inputFields.map((field: { name: string }) => field.name)).toEqual(
      ['_eq', '_in', '_is_null', '_neq', '_nin', '_st_intersects_geom_nband', '_st_intersects_nband_geom', '_st_intersects_rast'],
    );
    expect(answer.json.data.nband.inputFields).toEqual([
      { name: 'geommin', type: { name: null, ofType: { name: 'geometry' } } },
      { name: 'nband', type: { name: null, ofType: { name: 'Int' } } },
    ]);
    expect(answer.json.data.geom.inputFields).toEqual([
      { name: 'geommin', type: { name: null, ofType: { name: 'geometry' } } },
      { name: 'nband', type: { name: 'Int', ofType: null } },
    ]);
  });
});
