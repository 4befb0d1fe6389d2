import type { ColumnType } from '../models/column-types.js';
import type { OperandKind } from '../models/operators.js';
import type { ParamEncoding } from './params.js';

/** The SQL type and encoding of an operand's parameter. */
export function operandParam(type: ColumnType, operand: OperandKind): { sqlType: string; encoding: ParamEncoding } {
  const json = type.category === 'json' || type.category === 'jsonb';
  switch (operand) {
    case 'scalar':
      return { sqlType: type.sqlType, encoding: json ? 'json' : 'plain' };
    case 'scalar-list':
      return { sqlType: `${type.sqlType}[]`, encoding: json ? 'json-list' : 'plain' };
    case 'array':
      return { sqlType: type.sqlType, encoding: 'plain' };
    case 'string':
      return { sqlType: 'text', encoding: 'plain' };
    case 'string-list':
    case 'boolean':
      return { sqlType: 'text[]', encoding: 'plain' };
  }
}
