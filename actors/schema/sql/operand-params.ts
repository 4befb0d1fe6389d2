import { invariant } from '../../../src/errors/service-error.js';
import { qualified } from '../../../src/pg/quote.js';
import { siblingType, type ColumnType } from '../models/column-types.js';
import type { OperandKind } from '../models/operators.js';
import type { ParamEncoding } from './params.js';

/**
 * The SQL type and encoding of an operand's parameter, and the expression that makes the
 * column's value of it: most values are the parameter itself, cast; a `geometry` or
 * `geography` arrives as GeoJSON text for ST_GeomFromGeoJSON and a `raster` as hex WKB for
 * ST_RastFromHexWKB, as Hasura sends them.
 */
export interface OperandParam {
  sqlType: string;
  encoding: ParamEncoding;
  construct(placeholder: string): string;
}

const itself = (placeholder: string): string => placeholder;

/** The constructor of one value of an extension type from its parameter text, or null when a cast is enough. */
function constructor(type: ColumnType): ((text: string) => string) | null {
  const fn = (name: string) => qualified(type.typeSchema, name);
  switch (type.category) {
    case 'geometry':
      return (text) => `${fn('st_geomfromgeojson')}(${text})`;
    case 'geography':
      return (text) => `${fn('st_geomfromgeojson')}(${text})::${type.sqlType}`;
    case 'raster':
      return (text) => `${fn('st_rastfromhexwkb')}(${text})`;
    default:
      return null;
  }
}

export function operandParam(type: ColumnType, operand: OperandKind): OperandParam {
  const json = type.category === 'json' || type.category === 'jsonb';
  const construct = constructor(type);
  // GeoJSON is JSON text; a raster's hex WKB is plain text.
  const textEncoding: ParamEncoding = type.category === 'raster' ? 'plain' : 'json';
  switch (operand) {
    case 'scalar':
      if (construct !== null) return { sqlType: 'text', encoding: textEncoding, construct };
      return { sqlType: type.sqlType, encoding: json ? 'json' : 'plain', construct: itself };
    case 'scalar-list':
      if (construct !== null) {
        return { sqlType: 'text[]', encoding: textEncoding === 'json' ? 'json-list' : 'plain', construct: (list) => `array(select ${construct('value')} from unnest(${list}) as value)` };
      }
      return { sqlType: `${type.sqlType}[]`, encoding: json ? 'json-list' : 'plain', construct: itself };
    case 'array':
      return { sqlType: type.sqlType, encoding: 'plain', construct: itself };
    case 'string':
      return { sqlType: 'text', encoding: 'plain', construct: itself };
    case 'string-list':
    case 'boolean':
      return { sqlType: 'text[]', encoding: 'plain', construct: itself };
    case 'lquery':
    case 'ltxtquery':
      return { sqlType: siblingType(type, operand).sqlType, encoding: 'plain', construct: itself };
    case 'lquery-list':
      return { sqlType: `${siblingType(type, 'lquery').sqlType}[]`, encoding: 'plain', construct: itself };
    case 'd-within':
    case 'd-within-geography':
    case 'nband-geom':
    case 'geom-nband':
    case 'cast':
      invariant(false, `${operand} operands are input objects, compiled field by field`);
  }
}
