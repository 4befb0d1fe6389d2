import type { CatalogFunction, CatalogFunctionArg } from '../../pg/catalog.js';
import type { ArgumentSlot, SqlTypeRef } from '../description.js';

/** The input arguments of a `pg_proc` row: everything but OUT and TABLE columns. */
export function inputArgs(fn: CatalogFunction): CatalogFunctionArg[] {
  return fn.args.filter((arg) => arg.mode === 'i' || arg.mode === 'b' || arg.mode === 'v');
}

export function argType(arg: CatalogFunctionArg): SqlTypeRef {
  return { name: arg.type, schema: arg.typeSchema, kind: arg.typeKind, elementType: arg.elementType };
}

export function isJsonType(arg: CatalogFunctionArg): boolean {
  return arg.typeSchema === 'pg_catalog' && (arg.type === 'json' || arg.type === 'jsonb');
}

/**
 * The argument slots in SQL order. Unnamed arguments get Hasura's GraphQL names
 * `arg_1`, `arg_2`... counted over the unnamed ones only; `special` marks the session
 * and row arguments, which the caller never gives.
 */
export function argumentSlots(args: readonly CatalogFunctionArg[], special: (arg: CatalogFunctionArg, index: number) => ArgumentSlot | null): ArgumentSlot[] {
  let unnamed = 0;
  return args.map((arg, index) => {
    const slot = special(arg, index);
    if (slot !== null) return slot;
    const name = arg.name ?? `arg_${++unnamed}`;
    return { kind: 'input', name, sqlName: arg.name, type: argType(arg), hasDefault: arg.hasDefault };
  });
}

/** The session argument's slot; the rules checked that it is a named json or jsonb argument. */
export function sessionSlot(arg: CatalogFunctionArg): ArgumentSlot {
  return { kind: 'session', sqlName: arg.name!, type: arg.type === 'jsonb' ? 'jsonb' : 'json' };
}
