import { visit, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import type { RoleAccess } from '../models/role-access.js';
import type { SourceModel } from '../models/table-model.js';
import { invariant } from '../../../src/errors/service-error.js';
import { quoteIdent } from '../../../src/pg/quote.js';
import { QUERY_ROOT, SUBSCRIPTION_ROOT } from '../models/type-names.js';
import { compileContext, tableAccessOf, type CompileContext } from './context.js';
import { collectFields, type CollectedField } from './fields.js';
import type { VariableUse } from './input.js';
import type { ParamSource, Placeholder } from './params.js';
import { compileAggregate, compileByPk, compileList } from './select.js';
import { compileFunctionRoot } from './function-select.js';
import { jsonObject, nameLiteral } from './sql-text.js';
import { compileStream } from './stream.js';

/**
 * Compiles the database part of one query operation into ONE statement whose single
 * text column is the whole `data` object (ARCHITECTURE decision 4), plus the sources of
 * its parameters and how it depends on the request's variables (for plan reuse).
 */
export interface CompiledOperation {
  /** The statement; null when no root field reads the database. */
  sql: string | null;
  params: ParamSource[];
  /** The `data` object's JSON text when there is no statement (only `__typename`, introspection). */
  staticData: string | null;
  variableUses: ReadonlyMap<string, VariableUse>;
  /** The tables the statement reads (relation keys), and whether it calls functions. */
  reads: { tables: string[]; callsFunctions: boolean };
  /**
   * A streaming subscription's: the number of the cursor's parameter. Its statement has a
   * second column, `cursor`, the value the stream moves on to.
   */
  cursorParam: number | null;
}

/** Answers a root field that is not read from tables (`__schema`, `__type`, the placeholder) with its JSON text. */
export type StaticFieldResolver = (field: CollectedField) => string;

export interface CompileRequest {
  model: SourceModel;
  access: RoleAccess;
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  resolveStatic: StaticFieldResolver;
  /** How parameters are written: bind parameters by default; a subscription reads its cohort's values. */
  placeholder?: Placeholder;
  /** SERVICE_GRAPHQL_STRINGIFY_NUMERIC_TYPES (default false). */
  stringifyNumbers?: boolean;
}

/** A root field's value: an SQL expression, or JSON known at compile time (`sql` when it has a literal form). */
type RootValue = { kind: 'sql'; expression: string } | { kind: 'static'; json: string; sql?: string };

export function compileOperation(request: CompileRequest): CompiledOperation {
  const context = compileContext(request);
  const subscription = request.operation.operation === 'subscription';
  const rootName = subscription ? SUBSCRIPTION_ROOT : QUERY_ROOT;
  const targets = subscription ? context.access.subscriptionFields : context.access.rootFields;
  const roots = collectFields(context, rootName, [request.operation.selectionSet], '$');
  const stream = roots.length === 1 && targets.get(roots[0]!.name)?.kind === 'select-stream' ? roots[0]! : undefined;
  if (stream !== undefined) return compileStreamOperation(context, stream);
  const values = roots.map((field): [string, RootValue] => [field.responseKey, rootValue(context, request.resolveStatic, field, rootName, targets)]);

  const statics = values.flatMap(([key, value]) => (value.kind === 'static' ? [`${JSON.stringify(key)}:${value.json}`] : []));
  if (statics.length === values.length) return { sql: null, params: [], staticData: `{${statics.join(',')}}`, variableUses: context.reader.uses, reads: readsOf(context), cursorParam: null };
  const pairs = values.map(([key, value]): [string, string] => [
    key,
    value.kind === 'sql' ? value.expression : (value.sql ?? context.params.add({ kind: 'constant', value: value.json }, 'json')),
  ]);
  return {
    sql: `select ${jsonObject(pairs)}::text as "data"`,
    params: context.params.sources,
    staticData: null,
    variableUses: context.reader.uses,
    reads: readsOf(context),
    cursorParam: null,
  };
}

/** A streaming subscription's statement: the batch under the field's key as `data`, and the next `cursor`. */
function compileStreamOperation(context: CompileContext, field: CollectedField): CompiledOperation {
  const target = context.access.subscriptionFields.get(field.name)!;
  invariant(target.kind === 'select-stream', 'a stream field');
  const stream = compileStream(context, tableAccessOf(context, target.table), field);
  const alias = quoteIdent(context.aliases.fresh());
  return {
    sql: `select ${jsonObject([[field.responseKey, `${alias}."rows"`]])}::text as "data", ${alias}."cursor" as "cursor" from ${stream.source} as ${alias}`,
    params: context.params.sources,
    staticData: null,
    variableUses: context.reader.uses,
    reads: readsOf(context),
    cursorParam: stream.cursorParam,
  };
}

function readsOf(context: CompileContext): CompiledOperation['reads'] {
  return { tables: [...context.reads.tables], callsFunctions: context.reads.callsFunctions };
}

function rootValue(context: CompileContext, resolveStatic: StaticFieldResolver, field: CollectedField, rootName: string, targets: CompileContext['access']['rootFields']): RootValue {
  if (field.name === '__typename') return { kind: 'static', json: JSON.stringify(rootName), sql: nameLiteral(rootName) };
  const target = targets.get(field.name);
  if (target === undefined) {
    // The answer is computed once per plan, so every variable it reads shapes the plan.
    for (const node of field.nodes) visit(node, { Variable: (variable) => void context.reader.pin(variable.name.value) });
    return { kind: 'static', json: resolveStatic(field) };
  }
  if (target.kind === 'select-count') return { kind: 'sql', expression: compileAggregate(context, target.access, field) };
  const access = tableAccessOf(context, target.table);
  switch (target.kind) {
    case 'select':
      return { kind: 'sql', expression: compileList(context, access, field) };
    case 'select-by-pk':
      return { kind: 'sql', expression: compileByPk(context, access, field) };
    case 'select-aggregate':
      return { kind: 'sql', expression: compileAggregate(context, access, field) };
    case 'function':
    case 'function-aggregate':
      return { kind: 'sql', expression: compileFunctionRoot(context, target, field) };
    case 'select-stream':
      // A stream is a subscription's only root field (graphql-js' single-field rule).
      invariant(false, 'a stream field among other root fields');
  }
}
