import type { ComputedField, QualifiedName } from '../../metadata/types.js';
import { relationKey, type CatalogFunctionArg } from '../../pg/catalog.js';
import type { ComputedFieldDescription, ComputedFieldReturn, Verdict } from '../description.js';
import type { FunctionFacts } from '../facts.js';
import { argType, argumentSlots, inputArgs, isJsonType, sessionSlot } from './arguments.js';
import { isGraphqlName } from '../../graphql/name.js';
import { displayName, quoted } from '../../metadata/names.js';
import { missingFunction, overloadedFunction, reasonMessage } from './reasons.js';

export interface ComputedFieldQuestion {
  /** The table or view that gets the field. */
  table: QualifiedName;
  /** Its columns, which the field's name may not clash with. */
  columns: string[];
  field: ComputedField;
}

/** A computed field's function as metadata names it: a bare string means schema `public`. */
export function computedFieldFunction(field: ComputedField): QualifiedName {
  const fn = field.definition.function;
  return typeof fn === 'string' ? { schema: 'public', name: fn } : fn;
}

/**
 * The rules of interface 2.5 and compat-facts 6.3 (after Hasura's
 * `buildComputedFieldInfo`): a STABLE or IMMUTABLE function with IN arguments, exactly
 * one of them the table's row (`table_argument`, or the first), an optional json session
 * argument, returning a base type or rows of a tracked table.
 */
export function describeComputedField(question: ComputedFieldQuestion, facts: FunctionFacts): Verdict<ComputedFieldDescription> {
  const { table, field } = question;
  const fn = computedFieldFunction(field);
  const context = `in table ${quoted(table)}: in computed field ${JSON.stringify(field.name)}: `;
  if (question.columns.includes(field.name)) return { ok: false, reason: `${context}field definition conflicts with postgres column` };
  if (facts.candidates.length === 0) return { ok: false, reason: context + missingFunction(fn) };
  if (facts.candidates.length > 1) return { ok: false, reason: context + overloadedFunction(fn) };
  const raw = facts.candidates[0]!;

  const reasons: string[] = [];
  if (!isGraphqlName(field.name)) reasons.push(`${JSON.stringify(field.name)} is not valid GraphQL name`);
  if (raw.volatility === 'v') reasons.push(`the function ${quoted(fn)} is of type VOLATILE; cannot be added as a computed field`);
  if (raw.args.some((arg) => arg.mode === 'o' || arg.mode === 'b' || arg.mode === 'v')) reasons.push('function with "OUT", "INOUT" or "VARIADIC" parameters are not supported');

  let returns: ComputedFieldReturn;
  const returnKey = relationKey(raw.returnTypeSchema, raw.returnType);
  const returned = { schema: raw.returnTypeSchema, name: raw.returnType };
  if (raw.returnTypeKind === 'c' && facts.relations.includes(returnKey)) {
    if (!facts.tracked.includes(returnKey)) reasons.push(`the function ${quoted(fn)} returning set of table ${quoted(returned)} is not tracked or not found in database`);
    returns = { kind: 'table', table: returned, returnsSet: raw.returnsSet };
  } else {
    if (raw.returnTypeKind !== 'b') reasons.push(`the function ${quoted(fn)} returning type ${displayName(returned)} is not a BASE type`);
    returns = { kind: 'scalar', type: { name: raw.returnType, schema: raw.returnTypeSchema, kind: raw.returnTypeKind, elementType: raw.returnElementType } };
  }

  const args = inputArgs(raw);
  const tableArgName = field.definition.table_argument ?? null;
  let rowIndex = -1;
  if (tableArgName !== null) {
    rowIndex = args.findIndex((arg) => arg.name === tableArgName);
    if (rowIndex < 0) reasons.push(`${JSON.stringify(tableArgName)} is not an input argument of the function ${quoted(fn)}`);
  } else if (args.length === 0) {
    reasons.push(`the function ${quoted(fn)} has no input arguments`);
  } else {
    rowIndex = 0;
  }
  if (rowIndex >= 0) {
    const described = tableArgName === null ? `first argument of the function ${quoted(fn)}` : `${JSON.stringify(tableArgName)} argument of the function ${quoted(fn)}`;
    reasons.push(...rowArgumentProblems(args[rowIndex]!, table, described));
  }

  const sessionName = field.definition.session_argument ?? null;
  if (sessionName !== null) {
    const arg = args.find((candidate) => candidate.name === sessionName);
    if (arg === undefined) reasons.push(`${JSON.stringify(sessionName)} is not an input argument of the function ${quoted(fn)}`);
    else if (!isJsonType(arg)) reasons.push(`${JSON.stringify(sessionName)} argument of the function ${quoted(fn)} is not of type JSON`);
  }
  if (reasons.length > 0) {
    return { ok: false, reason: `${context}the computed field ${JSON.stringify(field.name)} cannot be added to table ${quoted(table)} ${reasonMessage(reasons)}` };
  }

  return {
    ok: true,
    description: {
      name: field.name,
      table,
      function: fn,
      returns,
      arguments: argumentSlots(args, (arg, index) => {
        if (index === rowIndex) return { kind: 'row', sqlName: arg.name };
        if (sessionName !== null && arg.name === sessionName) return sessionSlot(arg);
        return null;
      }),
      comment: field.comment ?? raw.comment,
    },
  };
}

function rowArgumentProblems(arg: CatalogFunctionArg, table: QualifiedName, described: string): string[] {
  const problems: string[] = [];
  if (arg.typeKind !== 'c') problems.push(`${described} is not COMPOSITE type`);
  const type = argType(arg);
  if (type.schema !== table.schema || type.name !== table.name) {
    problems.push(`${described} of type ${JSON.stringify(`${type.schema}.${type.name}`)} is not the table to which the computed field is being added`);
  }
  return problems;
}
