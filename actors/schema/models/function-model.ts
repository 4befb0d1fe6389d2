import type { FunctionEntry, Metadata, QualifiedName, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog, type CatalogColumn } from '../../../src/pg/catalog.js';
import type { ArgumentSlot, FunctionDescription, SqlTypeRef } from '../../../src/functions/description.js';
import { gatherFunctionFacts, trackedKeysForFunctions, trackedKeysOf } from '../../../src/functions/facts.js';
import { computedFieldFunction, describeComputedField } from '../../../src/functions/rules/computed-field-rules.js';
import { describeFunction } from '../../../src/functions/rules/function-rules.js';
import { isGraphqlName } from '../../../src/graphql/name.js';
import { columnTypeOf, type ColumnType } from './column-types.js';
import { inheritedRolesOf, withInheritingRoles } from './inherited-roles.js';

/**
 * Tracked functions and computed fields as the GraphQL layer sees them, built beside the
 * table model from the consistent metadata: the function rules' descriptions
 * (src/functions) with GraphQL names and types.
 */
export type ArgumentModel =
  | { kind: 'input'; name: string; sqlName: string | null; type: ColumnType; hasDefault: boolean }
  | { kind: 'session'; sqlName: string; sqlType: 'json' | 'jsonb' }
  | { kind: 'row'; sqlName: string | null };

export interface FunctionModel {
  key: string;
  function: QualifiedName;
  /** `<fn>`, `<fn>_aggregate` and `<fn>_args`, after custom_name and custom_root_fields. */
  fieldName: string;
  aggregateFieldName: string;
  argsTypeName: string;
  exposedAs: 'query' | 'mutation';
  /** Key of the tracked table whose rows it returns. */
  returnTable: string;
  returnsSet: boolean;
  arguments: ArgumentModel[];
  /** Roles with an explicit function permission (compat-facts 6.2, "Function permissions"), and the inherited roles of any of them. */
  permissions: Set<string>;
  description: string | null;
}

export type ComputedFieldReturnModel = { kind: 'scalar'; type: ColumnType } | { kind: 'table'; table: string; returnsSet: boolean };

export interface ComputedFieldModel {
  name: string;
  function: QualifiedName;
  returns: ComputedFieldReturnModel;
  arguments: ArgumentModel[];
  argsTypeName: string;
  description: string;
}

export interface FunctionsModel {
  functions: Map<string, FunctionModel>;
  /** Computed fields by the `relationKey` of their table. */
  computedFields: Map<string, ComputedFieldModel[]>;
}

export function buildFunctionsModel(metadata: Metadata, catalog: Catalog): FunctionsModel {
  const source = metadata.sources[0];
  const tracked = trackedKeysForFunctions(source);
  const computedFields = new Map<string, ComputedFieldModel[]>();
  for (const entry of source?.tables ?? []) {
    const fields = computedFieldModels(entry, catalog, tracked);
    if (fields.length > 0) computedFields.set(relationKey(entry.table.schema, entry.table.name), fields);
  }
  return { functions: trackedFunctionModels(metadata, catalog, tracked), computedFields };
}

/** The tracked functions the rules accept, by key; `tracked`: the tracked tables' keys, found when not given. */
export function trackedFunctionModels(metadata: Metadata, catalog: Catalog, tracked?: ReadonlySet<string>): Map<string, FunctionModel> {
  const source = metadata.sources[0];
  const functions = new Map<string, FunctionModel>();
  if ((source?.functions ?? []).length === 0) return functions;
  const trackedKeys = tracked ?? trackedKeysOf(source?.tables ?? []);
  for (const entry of source?.functions ?? []) {
    const verdict = describeFunction(entry, gatherFunctionFacts(catalog, entry.function, trackedKeys));
    if (!verdict.ok) continue;
    const configuration = entry.configuration ?? {};
    const permitted = withInheritingRoles(new Set((entry.permissions ?? []).map((permission) => permission.role)), inheritedRolesOf(metadata));
    const model = functionModel(verdict.description, configuration, permitted);
    if (model !== null) functions.set(model.key, model);
  }
  return functions;
}

/** The default GraphQL name of a function: bare in `public`, `<schema>_<name>` elsewhere. */
function graphqlNameOf(fn: QualifiedName): string {
  return fn.schema === 'public' ? fn.name : `${fn.schema}_${fn.name}`;
}

function functionModel(description: FunctionDescription, configuration: NonNullable<FunctionEntry['configuration']>, permissions: Set<string>): FunctionModel | null {
  const base = configuration.custom_name ?? graphqlNameOf(description.function);
  const fieldName = configuration.custom_root_fields?.function ?? base;
  const aggregateFieldName = configuration.custom_root_fields?.function_aggregate ?? `${base}_aggregate`;
  const args = argumentModels(description.arguments);
  if (args === null || ![fieldName, aggregateFieldName, base].every(isGraphqlName)) return null;
  const table = description.returnTable;
  return {
    key: relationKey(description.function.schema, description.function.name),
    function: description.function,
    fieldName,
    aggregateFieldName,
    argsTypeName: `${base}_args`,
    exposedAs: description.exposedAs,
    returnTable: relationKey(table.schema, table.name),
    returnsSet: description.returnsSet,
    arguments: args,
    permissions,
    description: description.comment,
  };
}

function computedFieldModels(entry: TableEntry, catalog: Catalog, tracked: ReadonlySet<string>): ComputedFieldModel[] {
  if ((entry.computed_fields ?? []).length === 0) return [];
  const relation = catalog.relations.get(relationKey(entry.table.schema, entry.table.name));
  if (relation === undefined) return [];
  const columns = relation.columns.map((column) => column.name);
  const models: ComputedFieldModel[] = [];
  for (const field of entry.computed_fields ?? []) {
    const fn = computedFieldFunction(field);
    const verdict = describeComputedField({ table: entry.table, columns, field }, gatherFunctionFacts(catalog, fn, tracked));
    if (!verdict.ok) continue;
    const { returns, comment } = verdict.description;
    const args = argumentModels(verdict.description.arguments);
    let returnModel: ComputedFieldReturnModel | null;
    if (returns.kind === 'table') returnModel = { kind: 'table', table: relationKey(returns.table.schema, returns.table.name), returnsSet: returns.returnsSet };
    else {
      const type = sqlColumnType(returns.type);
      returnModel = type === null ? null : { kind: 'scalar', type };
    }
    if (args === null || returnModel === null) continue;
    models.push({
      name: field.name,
      function: fn,
      returns: returnModel,
      arguments: args,
      // compat-facts 6.2: `full_name(args: author_full_name_args)`, named after the function.
      argsTypeName: `${graphqlNameOf(fn)}_args`,
      description: comment ?? `A computed field, executes function ${JSON.stringify(fn.schema === 'public' ? fn.name : `${fn.schema}.${fn.name}`)}`,
    });
  }
  return models;
}

/** The GraphQL typing of each argument; null when one has a type GraphQL cannot carry. */
function argumentModels(slots: readonly ArgumentSlot[]): ArgumentModel[] | null {
  const models: ArgumentModel[] = [];
  for (const slot of slots) {
    if (slot.kind === 'session') {
      models.push({ kind: 'session', sqlName: slot.sqlName, sqlType: slot.type });
      continue;
    }
    if (slot.kind === 'row') {
      models.push({ kind: 'row', sqlName: slot.sqlName });
      continue;
    }
    const type = sqlColumnType(slot.type);
    if (type === null) return null;
    models.push({ kind: 'input', name: slot.name, sqlName: slot.sqlName, type, hasDefault: slot.hasDefault });
  }
  return models;
}

/** A function's argument or result type, typed as a column of that type would be. */
function sqlColumnType(type: SqlTypeRef): ColumnType | null {
  const column: CatalogColumn = {
    name: '',
    position: 0,
    type: type.name,
    udtName: type.name,
    typeSchema: type.schema,
    typeKind: type.kind,
    elementUdtName: type.elementType,
    nullable: true,
    hasDefault: false,
    isGenerated: false,
    isIdentity: false,
    comment: null,
  };
  return columnTypeOf(column);
}

/** The caller's arguments, in order. */
export function inputArgumentsOf(args: readonly ArgumentModel[]): Extract<ArgumentModel, { kind: 'input' }>[] {
  return args.filter((arg): arg is Extract<ArgumentModel, { kind: 'input' }> => arg.kind === 'input');
}

/**
 * The type of a scalar computed field without arguments of its own: such a field can
 * filter and sort (compat-facts 6.2); null for any other.
 */
/** The table whose rows a SETOF-table computed field without arguments of its own returns, which `order_by` may aggregate (Hasura's `<cf>_aggregate`); else null. */
export function aggregableRowsOf(field: ComputedFieldModel): string | null {
  return field.returns.kind === 'table' && field.returns.returnsSet && inputArgumentsOf(field.arguments).length === 0 ? field.returns.table : null;
}

export function plainScalarType(field: ComputedFieldModel): ColumnType | null {
  return field.returns.kind === 'scalar' && inputArgumentsOf(field.arguments).length === 0 ? field.returns.type : null;
}
