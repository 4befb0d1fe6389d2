import { describe, expect, it } from 'vitest';
import { checkGeoJson, checkLtree, checkRaster } from './extension-values.js';

describe('GeoJSON geometries', () => {
  it('takes every geometry type, with or without a crs', () => {
    for (const value of [
      { type: 'Point', coordinates: [1, 2] },
      { type: 'Point', coordinates: [1, 2, 3], crs: { type: 'name', properties: { name: 'EPSG:4326' } } },
      { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] },
      { type: 'LineString', coordinates: [[1, 2], [3, 4]] },
      { type: 'MultiLineString', coordinates: [[[1, 2], [3, 4]]] },
      { type: 'Polygon', coordinates: [[[0, 0], [0, 1], [1, 1], [0, 0]]] },
      { type: 'MultiPolygon', coordinates: [[[[0, 0], [0, 1], [1, 1], [0, 0]]]] },
      { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] },
    ]) expect(checkGeoJson(value), JSON.stringify(value)).toBeNull();
  });

  it('says what is wrong with a malformed one', () => {
    expect(checkGeoJson('POINT(1 2)')).toBe('a GeoJSON geometry object is expected');
    expect(checkGeoJson({ type: 'Feature', geometry: null })).toBe('unexpected geometry type: Feature');
    expect(checkGeoJson({ type: 'Point' })).toBe('a Point needs "coordinates"');
    expect(checkGeoJson({ type: 'Point', coordinates: [1, '2'] })).toBe('a position must be an array of numbers');
    expect(checkGeoJson({ type: 'LineString', coordinates: [[1, 2]] })).toBe('a LineString needs at least 2 positions');
    expect(checkGeoJson({ type: 'Polygon', coordinates: [[[0, 0], [0, 1], [1, 1], [1, 0]]] })).toBe('the first and last positions of a LinearRing must be equal');
    expect(checkGeoJson({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [] }] })).toBe('a position needs 2 to 4 numbers');
  });
});

describe('ltree label paths and rasters', () => {
  it('refuses empty labels, as Hasura does', () => {
    expect(checkLtree('Top.Science')).toBeNull();
    expect(checkLtree('Top..Science')).not.toBeNull();
    expect(checkLtree('')).not.toBeNull();
    expect(checkLtree(3)).not.toBeNull();
  });

  it('takes hexadecimal text only', () => {
    expect(checkRaster('01000001ff')).toBeNull();
    expect(checkRaster('0100000')).not.toBeNull();
    expect(checkRaster('zz')).not.toBeNull();
    expect(checkRaster(1)).toBe('expecting String for raster');
  });
});
