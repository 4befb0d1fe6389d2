/**
 * What a value of an extension type must look like before it goes to PostgreSQL, judged
 * as Hasura's column parsers judge it: `geometry`/`geography` take a GeoJSON geometry
 * object, `ltree` a dotted label path without empty labels, `raster` the hexadecimal text
 * of its well-known binary. Each check returns the complaint, or null for a good value.
 */
import { SESSION_VARIABLE_PREFIX } from '../../../src/session/session.js';
import type { ColumnType } from './column-types.js';
import type { OperandKind } from './comparison-operator.js';

export type ValueCheck = (value: unknown) => string | null;

const LTREE_MESSAGE = 'Expecting label path: a sequence of zero or more labels separated by dots, for example L1.L2.L3';

export const checkLtree: ValueCheck = (value) =>
  typeof value === 'string' && !value.split('.').some((label) => label === '') ? null : LTREE_MESSAGE;

export const checkRaster: ValueCheck = (value) => {
  if (typeof value !== 'string') return 'expecting String for raster';
  return /^(?:[0-9a-fA-F]{2})*$/.test(value) ? null : 'invalid hexadecimal representation of raster well known binary format';
};

type Shape = (coordinates: unknown) => string | null;

const position = (value: unknown): string | null => {
  if (!Array.isArray(value)) return 'a position must be an array of numbers';
  if (value.length < 2 || value.length > 4) return 'a position needs 2 to 4 numbers';
  return value.every((item) => typeof item === 'number') ? null : 'a position must be an array of numbers';
};

const listOf = (item: (value: unknown) => string | null, minimum: number, what: string) => (value: unknown): string | null => {
  if (!Array.isArray(value)) return `${what} must be an array`;
  if (value.length < minimum) return `${what} needs at least ${minimum} positions`;
  for (const element of value) {
    const problem = item(element);
    if (problem !== null) return problem;
  }
  return null;
};

const lineString = listOf(position, 2, 'a LineString');

const linearRing = (value: unknown): string | null => {
  const problem = listOf(position, 4, 'a LinearRing')(value);
  if (problem !== null) return problem;
  const ring = value as number[][];
  const [first, last] = [ring[0]!, ring[ring.length - 1]!];
  return first.length === last.length && first.every((coordinate, index) => coordinate === last[index]) ? null : 'the first and last positions of a LinearRing must be equal';
};

const polygon = listOf(linearRing, 0, 'a Polygon');

const SHAPES: Record<string, Shape> = {
  Point: position,
  MultiPoint: listOf(position, 0, 'a MultiPoint'),
  LineString: lineString,
  MultiLineString: listOf(lineString, 0, 'a MultiLineString'),
  Polygon: polygon,
  MultiPolygon: listOf(polygon, 0, 'a MultiPolygon'),
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const checkGeoJson: ValueCheck = (value) => {
  if (!isObject(value)) return 'a GeoJSON geometry object is expected';
  const { type } = value;
  if (typeof type !== 'string') return 'a GeoJSON geometry needs a "type"';
  if (value.crs !== undefined && value.crs !== null && !isObject(value.crs)) return '"crs" must be an object';
  if (type === 'GeometryCollection') {
    if (!Array.isArray(value.geometries)) return 'a GeometryCollection needs "geometries", an array';
    for (const member of value.geometries) {
      const problem = checkGeoJson(member);
      if (problem !== null) return problem;
    }
    return null;
  }
  const shape = SHAPES[type];
  if (shape === undefined) return `unexpected geometry type: ${type}`;
  if (value.coordinates === undefined) return `a ${type} needs "coordinates"`;
  return shape(value.coordinates);
};

/** The checks by GraphQL scalar name. */
export const VALUE_CHECKS: Record<string, ValueCheck> = { geometry: checkGeoJson, geography: checkGeoJson, ltree: checkLtree, raster: checkRaster };

/**
 * A permission's operand of a checked type, judged when the permission is created rather
 * than when a query runs; a session variable standing for the value is judged per request.
 */
export function operandValueProblem(type: ColumnType, operand: OperandKind, value: unknown): string | null {
  const check = (scalar: string, item: unknown): string | null =>
    typeof item === 'string' && item.toLowerCase().startsWith(SESSION_VARIABLE_PREFIX) ? null : VALUE_CHECKS[scalar]?.(item) ?? null;
  switch (operand) {
    case 'scalar':
      return check(type.scalar, value);
    case 'scalar-list':
      return Array.isArray(value) ? value.map((item) => check(type.scalar, item)).find((problem) => problem !== null) ?? null : null;
    case 'd-within':
    case 'd-within-geography':
      return isObject(value) && value.from !== undefined ? check(type.scalar, value.from) : null;
    case 'nband-geom':
    case 'geom-nband':
      return isObject(value) && value.geommin !== undefined ? check('geometry', value.geommin) : null;
    default:
      return null;
  }
}
