import type { ColumnType } from '../models/column-types.js';
import type { CompileContext } from './context.js';
import type { ComputedFieldModel } from '../models/function-model.js';
import { qualified } from '../../../src/pg/quote.js';

/**
 * Types whose values JSON numbers cannot all carry exactly: Hasura's `isBigNum` (bigint,
 * bigserial, numeric, double precision; money is text in JSON already). With
 * SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES these are answered as strings.
 */
const STRINGIFIED_TYPES = new Set(['int8', 'numeric', 'float8']);

/**
 * A value of `type` as it goes into the result's JSON: cast to text when numbers are
 * stringified and the type is one of them, so PostgreSQL writes a JSON string with every
 * digit (its float8 text is the shortest exact form). Hasura decides by the column's
 * type, for aggregates too (`sum` of a bigint column is stringified, of an int column not).
 */
export function outputValue(context: CompileContext, type: ColumnType, expression: string): string {
  if (isSpatial(type)) return spatialOutput(type, expression);
  if (!context.stringifyNumbers || type.isArray || !STRINGIFIED_TYPES.has(type.elementSqlType)) return expression;
  return `(${expression})::text`;
}

const isSpatial = (type: ColumnType): boolean => !type.isArray && (type.category === 'geometry' || type.category === 'geography');

/**
 * A geometry or geography as GeoJSON, as Hasura answers it: up to 15 decimal digits, and
 * the long form of its coordinate system (`urn:ogc:def:crs:EPSG::4326`) when it has one;
 * any other value as it is.
 */
export function spatialOutput(type: ColumnType, expression: string): string {
  return isSpatial(type) ? `${qualified(type.typeSchema, 'st_asgeojson')}(${expression}, 15, 4)::json` : expression;
}

/** A scalar computed field's value (or an aggregate of it), typed by its function's return type. */
export function scalarOutput(context: CompileContext, field: ComputedFieldModel, expression: string): string {
  return field.returns.kind === 'scalar' ? outputValue(context, field.returns.type, expression) : expression;
}
