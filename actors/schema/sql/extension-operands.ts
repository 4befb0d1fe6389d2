import { errors } from '../../../src/errors/errors.js';
import { siblingType, type ColumnType } from '../models/column-types.js';
import { OBJECT_OPERAND_TYPE_NAMES, type ObjectOperand } from '../models/extension-operators.js';
import type { CompileContext } from './context.js';
import type { Input } from './input.js';
import { operandParam } from './operand-params.js';

/**
 * The PostGIS operators whose operand is an input object (`_st_d_within: {distance,
 * from}`...): its fields become the function's arguments after the column, in the order
 * the function takes them. A field left out takes its default (`use_spheroid: true`, no
 * `nband`); one without a default is required.
 */
interface ObjectField {
  name: string;
  type: (column: ColumnType) => ColumnType;
  /** SQL used when the field is left out; undefined: the field is required. */
  absent?: string;
}

const builtIn = (scalar: string, sqlType: string): ColumnType => ({ scalar, isArray: false, sqlType, elementSqlType: sqlType, typeSchema: 'pg_catalog', category: 'other' });
const FLOAT = builtIn('Float', 'float8');
const INT = builtIn('Int', 'int4');
const BOOLEAN = builtIn('Boolean', 'bool');

const sameType = (column: ColumnType) => column;
const geometryOf = (column: ColumnType) => siblingType(column, 'geometry');

const OBJECT_FIELDS: Record<ObjectOperand, ObjectField[]> = {
  'd-within': [{ name: 'from', type: sameType }, { name: 'distance', type: () => FLOAT }],
  'd-within-geography': [{ name: 'from', type: sameType }, { name: 'distance', type: () => FLOAT }, { name: 'use_spheroid', type: () => BOOLEAN, absent: 'true' }],
  'nband-geom': [{ name: 'nband', type: () => INT }, { name: 'geommin', type: geometryOf }],
  'geom-nband': [{ name: 'geommin', type: geometryOf }, { name: 'nband', type: () => INT, absent: 'null::int4' }],
};

/** The operand's fields as SQL arguments, comma-separated. */
export function objectOperandArguments(context: CompileContext, column: ColumnType, operand: ObjectOperand, input: Input): string {
  const { reader, params } = context;
  const fields = OBJECT_FIELDS[operand];
  const given = new Map(reader.fields(input));
  for (const [name, value] of given) {
    if (!fields.some((field) => field.name === name)) throw errors.fieldNotFound(value.path, name, OBJECT_OPERAND_TYPE_NAMES[operand]);
  }
  return fields.map((field) => {
    const value = given.get(field.name);
    const type = field.type(column);
    if (value === undefined) {
      if (field.absent === undefined) throw errors.missingField(input.path, field.name);
      return field.absent;
    }
    if (reader.isNull(value)) return `null::${type.sqlType}`;
    const { sqlType, encoding, construct } = operandParam(type, 'scalar');
    return construct(reader.param(value, params, sqlType, encoding, type.scalar));
  }).join(', ');
}
