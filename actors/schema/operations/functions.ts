import { errors } from '../../../src/errors/errors.js';
import { findTable, sameFunction, withSource } from '../../../src/metadata/edit.js';
import type { FunctionEntry, Metadata, QualifiedName } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import type { FunctionDescription } from '../../../src/functions/description.js';
import { gatherFunctionFacts, trackedKeysOf } from '../../../src/functions/facts.js';
import { describeFunction } from '../../../src/functions/rules/function-rules.js';
import { quoted } from '../../../src/metadata/names.js';
import { missingFunction, overloadedFunction } from '../../../src/functions/rules/reasons.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { checkNamesFree } from './root-names.js';

/**
 * The function operations of `/v1/query` (interface 2.4, 4.2; compat-facts 6.1, 6.3).
 * What only the database can tell (the function's shape in `pg_proc`) is judged by the
 * function rules of src/functions; the first-stage checks on the metadata are here.
 */
type FunctionName = QualifiedName | { schema?: string; name: string } | string;
type Configuration = NonNullable<FunctionEntry['configuration']>;

export function toFunctionName(name: FunctionName): QualifiedName {
  return typeof name === 'string' ? { schema: 'public', name } : { schema: name.schema ?? 'public', name: name.name };
}


export function functionsOf(metadata: Metadata): FunctionEntry[] {
  return metadata.sources[0]?.functions ?? [];
}

function withFunctions(metadata: Metadata, change: (functions: FunctionEntry[]) => FunctionEntry[]): Metadata {
  return withSource(metadata, (source) => ({ ...source, functions: change(source.functions ?? []) }));
}

/** The tracked function an operation names, or Hasura's `not-exists`. */
function trackedFunction(context: OperationContext, fn: QualifiedName, path: string): FunctionEntry {
  const entry = functionsOf(context.metadata).find((candidate) => sameFunction(candidate.function, fn));
  if (entry === undefined) throw errors.notExists(path, `function ${quoted(fn)} not found in the cache`);
  return entry;
}

/**
 * Judges the entry by the function rules against the catalog this request sees;
 * a refusal is the build error of compat-facts 6.3, with the inconsistent object inside.
 */
export function describeTracked(context: OperationContext, entry: FunctionEntry): FunctionDescription {
  const facts = gatherFunctionFacts(context.catalog, entry.function, trackedKeysOf(context.metadata.sources[0]?.tables ?? []));
  const verdict = describeFunction(entry, facts);
  if (verdict.ok) return verdict.description;
  throw errors.invalidConfiguration(context.argsPath, verdict.reason).withInternal([{ type: 'function', definition: { ...entry, source: 'default' }, reason: verdict.reason }]);
}

async function track(context: OperationContext, fn: QualifiedName, configuration: Configuration | undefined, comment: string | null | undefined) {
  const path = context.argsPath;
  if (functionsOf(context.metadata).some((entry) => sameFunction(entry.function, fn))) {
    throw errors.alreadyTracked(path, `function already tracked: ${quoted(fn)}`);
  }
  if (findTable(context.metadata, fn) !== undefined) throw errors.notSupported(path, `table with name ${quoted(fn)} already exists`);
  const candidates = context.catalog.functions.get(relationKey(fn.schema, fn.name)) ?? [];
  if (candidates.length === 0) throw errors.notExists(path, missingFunction(fn));
  if (candidates.length > 1) throw errors.notSupported(path, overloadedFunction(fn));

  const entry: FunctionEntry = { function: fn };
  const kept = withoutEmpty(configuration);
  if (kept !== undefined) entry.configuration = kept;
  if (comment != null) entry.comment = comment;
  describeTracked(context, entry);
  const metadata = withFunctions(context.metadata, (functions) => [...functions, entry]);
  checkNamesFree(context, metadata, { function: fn });
  return { response: SUCCESS, metadata };
}

/** Export form (compat-facts 3.2): null settings and an empty configuration are left out. */
function withoutEmpty(configuration: Configuration | undefined): Configuration | undefined {
  if (configuration === undefined) return undefined;
  const kept = Object.fromEntries(Object.entries(configuration).filter(([, value]) => value !== null && value !== undefined)) as Configuration;
  if (kept.custom_root_fields !== undefined) {
    const roots = Object.fromEntries(Object.entries(kept.custom_root_fields).filter(([, value]) => value !== null && value !== undefined));
    if (Object.keys(roots).length === 0) delete kept.custom_root_fields;
    else kept.custom_root_fields = roots;
  }
  return Object.keys(kept).length === 0 ? undefined : kept;
}

export const trackFunction: Operation<FunctionName> = {
  type: 'track_function',
  argsSchema: 'query/track_function',
  async run(args, context) {
    return track(context, toFunctionName(args), undefined, undefined);
  },
};

export const trackFunctionV2: Operation<{ function: FunctionName; configuration?: Configuration; comment?: string | null }> = {
  type: 'track_function',
  version: 2,
  argsSchema: 'query/track_function.v2',
  async run(args, context) {
    return track(context, toFunctionName(args.function), args.configuration, args.comment);
  },
};

type UntrackArgs = string | { schema?: string; name?: string; table?: FunctionName; function?: FunctionName; cascade?: boolean };

export const untrackFunction: Operation<UntrackArgs> = {
  type: 'untrack_function',
  argsSchema: 'query/untrack_function',
  async run(args, context) {
    const fn = untrackTarget(args, context.argsPath);
    trackedFunction(context, fn, context.argsPath);
    return { response: SUCCESS, metadata: withFunctions(context.metadata, (functions) => functions.filter((entry) => !sameFunction(entry.function, fn))) };
  },
};

/** `{schema, name}`, or the function under `table` (interface 4.2) or `function` (compat-facts 6.1). */
function untrackTarget(args: UntrackArgs, path: string): QualifiedName {
  if (typeof args === 'string') return toFunctionName(args);
  const forms = [args.name !== undefined, args.table !== undefined, args.function !== undefined].filter(Boolean).length;
  if (forms !== 1) throw errors.parseFailed(path, 'give the function as "schema" and "name", or under "table" or "function"');
  if (args.table !== undefined) return toFunctionName(args.table);
  if (args.function !== undefined) return toFunctionName(args.function);
  return toFunctionName({ ...(args.schema === undefined ? {} : { schema: args.schema }), name: args.name! });
}

export const setFunctionCustomization: Operation<{ function: FunctionName; configuration: Configuration }> = {
  type: 'set_function_customization',
  argsSchema: 'query/set_function_customization',
  async run(args, context) {
    const fn = toFunctionName(args.function);
    const current = trackedFunction(context, fn, `${context.argsPath}.function`);
    const next: FunctionEntry = { ...current };
    const kept = withoutEmpty(args.configuration);
    if (kept === undefined) delete next.configuration;
    else next.configuration = kept;
    describeTracked(context, next);
    const metadata = withFunctions(context.metadata, (functions) => functions.map((entry) => (sameFunction(entry.function, fn) ? next : entry)));
    checkNamesFree(context, metadata, { function: fn });
    return { response: SUCCESS, metadata };
  },
};

export const createFunctionPermission: Operation<{ function: FunctionName; role: string }> = {
  type: 'create_function_permission',
  argsSchema: 'query/create_function_permission',
  async run(args, context) {
    const fn = toFunctionName(args.function);
    const entry = trackedFunction(context, fn, `${context.argsPath}.function`);
    if ((entry.permissions ?? []).some((permission) => permission.role === args.role)) {
      throw errors.alreadyExists(context.argsPath, `permission of role ${JSON.stringify(args.role)} already exists for function ${quoted(fn)} in source: "default"`);
    }
    const { returnTable } = describeTracked(context, entry);
    const table = findTable(context.metadata, returnTable);
    if (!(table?.select_permissions ?? []).some((permission) => permission.role === args.role)) {
      throw errors.notSupported(
        context.argsPath,
        `function permission can only be added when the function's return table ${quoted(returnTable)} has select permission configured for role: ${JSON.stringify(args.role)}`,
      );
    }
    const next: FunctionEntry = { ...entry, permissions: [...(entry.permissions ?? []), { role: args.role }] };
    return { response: SUCCESS, metadata: withFunctions(context.metadata, (functions) => functions.map((item) => (sameFunction(item.function, fn) ? next : item))) };
  },
};

export const dropFunctionPermission: Operation<{ function: FunctionName; role: string }> = {
  type: 'drop_function_permission',
  argsSchema: 'query/drop_function_permission',
  async run(args, context) {
    const fn = toFunctionName(args.function);
    const entry = functionsOf(context.metadata).find((candidate) => sameFunction(candidate.function, fn));
    if (!(entry?.permissions ?? []).some((permission) => permission.role === args.role)) {
      throw errors.notExists(context.argsPath, `permission of role ${JSON.stringify(args.role)} does not exist for function ${quoted(fn)} in source: "default"`);
    }
    const next: FunctionEntry = { ...entry!, permissions: entry!.permissions!.filter((permission) => permission.role !== args.role) };
    if (next.permissions!.length === 0) delete next.permissions;
    return { response: SUCCESS, metadata: withFunctions(context.metadata, (functions) => functions.map((item) => (sameFunction(item.function, fn) ? next : item))) };
  },
};
