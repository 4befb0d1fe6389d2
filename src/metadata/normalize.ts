import { normalizeApiLimits } from './api-limits.js';
import { changedSpan } from './changed-span.js';
import { compareNames as compare, compareTables, markSorted } from './table-order.js';
import type { AllowlistEntry, FunctionEntry, Metadata, QueryCollectionEntry, RemoteSchemaEntry, SourceEntry, TableEntry } from './types.js';

const TABLE_KEY_ORDER: (keyof TableEntry)[] = [
  'table',
  'is_enum',
  'configuration',
  'object_relationships',
  'array_relationships',
  'computed_fields',
  'insert_permissions',
  'select_permissions',
  'update_permissions',
  'delete_permissions',
  'event_triggers',
];

const byName = <T extends { name: string }>(a: T, b: T) => compare(a.name, b.name);
const byRole = <T extends { role: string }>(a: T, b: T) => compare(a.role, b.role);

/**
 * Table entries this module produced. Metadata is immutable (edit.ts), so an entry an
 * operation left alone is returned as it is: it keeps its identity from one metadata
 * version to the next, which the per-table caches of the schema actor rely on, and a
 * change costs the tables it touched rather than all of them.
 */
const normalizedTables = new WeakSet<TableEntry>();

function normalizeTable(entry: TableEntry): TableEntry {
  if (normalizedTables.has(entry)) return entry;
  const sorted: Partial<Record<keyof TableEntry, unknown>> = {
    ...entry,
    object_relationships: entry.object_relationships?.slice().sort(byName),
    array_relationships: entry.array_relationships?.slice().sort(byName),
    computed_fields: entry.computed_fields?.slice().sort(byName),
    insert_permissions: entry.insert_permissions?.slice().sort(byRole),
    select_permissions: entry.select_permissions?.slice().sort(byRole),
    update_permissions: entry.update_permissions?.slice().sort(byRole),
    delete_permissions: entry.delete_permissions?.slice().sort(byRole),
    event_triggers: entry.event_triggers?.slice().sort(byName),
  };
  const out: Record<string, unknown> = {};
  for (const key of TABLE_KEY_ORDER) {
    const value = sorted[key];
    if (value === undefined || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (key === 'configuration' && Object.keys(value as object).length === 0) continue;
    out[key] = value;
  }
  normalizedTables.add(out as unknown as TableEntry);
  return out as unknown as TableEntry;
}

/** Function entry key order (compat-facts 3.2): `function`, `configuration`?, `permissions`?, `comment`?. */
function normalizeFunction(entry: FunctionEntry): FunctionEntry {
  const out: FunctionEntry = { function: entry.function };
  if (entry.configuration !== undefined && Object.keys(entry.configuration).length > 0) out.configuration = entry.configuration;
  if (entry.permissions !== undefined && entry.permissions.length > 0) out.permissions = entry.permissions.slice().sort(byRole);
  if (entry.comment !== undefined) out.comment = entry.comment;
  return out;
}

const byTableName = (a: TableEntry, b: TableEntry) => compareTables(a.table, b.table);

/**
 * The table list normalised last. It is the `tables` of the metadata returned, which, as all
 * metadata, nobody changes in place (edit.ts): its entries stay normalised and in order.
 */
let lastTableList: readonly TableEntry[] = [];

/**
 * The table entries normalised and sorted. Metadata is normalised after every operation,
 * which leaves thousands of entries as the same objects in the same places as the list
 * normalised last (changed-span.ts): those are normalised and in order already, so only
 * the changed span is normalised and only around it is the order checked. A tracked table
 * comes where it sorts (table-order.ts `withTableAdded`); an entry out of order, in metadata
 * edited otherwise, is sorted into place. The list returned is marked as sorted, for lookups
 * by bisection.
 */
function normalizedTableList(tables: readonly TableEntry[]): TableEntry[] {
  const span = changedSpan(lastTableList, tables);
  const out = tables.slice();
  for (let index = span.start; index < span.afterEnd; index++) out[index] = normalizeTable(tables[index]!);
  let sorted = true;
  for (let index = Math.max(1, span.start); index < Math.min(out.length, span.afterEnd + 1) && sorted; index++) sorted = byTableName(out[index - 1]!, out[index]!) <= 0;
  const list = sorted ? out : out.sort(byTableName);
  markSorted(list);
  lastTableList = list;
  return list;
}

function normalizeSource(source: SourceEntry): SourceEntry {
  const out: SourceEntry = {
    name: source.name,
    kind: source.kind,
    tables: normalizedTableList(source.tables),
  };
  if (source.functions !== undefined && source.functions.length > 0) {
    out.functions = source.functions
      .map(normalizeFunction)
      .sort((a, b) => compare(a.function.name, b.function.name) || compare(a.function.schema, b.function.schema));
  }
  if (source.configuration !== undefined) out.configuration = source.configuration;
  return out;
}

const REMOTE_DEFINITION_KEY_ORDER = ['url', 'url_from_env', 'timeout_seconds', 'customization', 'headers', 'forward_client_headers'] as const;

/**
 * Remote schema entry order (compat-facts 3.2): `name`, `definition`, `comment`?,
 * `permissions`? by role; the definition's keys in Hasura's order, empty headers
 * and a false `forward_client_headers` left out.
 */
function normalizeRemoteSchema(entry: RemoteSchemaEntry): RemoteSchemaEntry {
  const definition: Record<string, unknown> = {};
  for (const key of REMOTE_DEFINITION_KEY_ORDER) {
    const value = entry.definition[key];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    definition[key] = value;
  }
  const out: RemoteSchemaEntry = { name: entry.name, definition: definition as RemoteSchemaEntry['definition'] };
  if (entry.comment !== undefined && entry.comment !== null) out.comment = entry.comment;
  if (entry.permissions !== undefined && entry.permissions.length > 0) {
    out.permissions = entry.permissions.map((permission) => {
      const item: NonNullable<RemoteSchemaEntry['permissions']>[number] = { role: permission.role, definition: { schema: permission.definition.schema } };
      if (permission.comment !== undefined && permission.comment !== null) item.comment = permission.comment;
      return item;
    }).sort(byRole);
  }
  return out;
}

/** Query collection entry (compat-facts 3.2, Hasura's export): `name`, `definition`, `comment`?; queries keep their order. */
function normalizeQueryCollection(entry: QueryCollectionEntry): QueryCollectionEntry {
  const out: QueryCollectionEntry = { name: entry.name, definition: { queries: entry.definition.queries.map(({ name, query }) => ({ name, query })) } };
  if (entry.comment !== undefined && entry.comment !== null) out.comment = entry.comment;
  return out;
}

/** An allowlist entry always shows its scope, global when none was given (Hasura's `AllowlistEntry` encoding). */
function normalizeAllowlistEntry(entry: AllowlistEntry): AllowlistEntry {
  const scope = entry.scope === undefined || entry.scope.global ? { global: true } : { global: false, roles: entry.scope.roles ?? [] };
  return { collection: entry.collection, scope };
}

/**
 * Puts metadata in its export form (compat-facts 3.2): tables, relationships,
 * permissions, remote schemas, query collections and allowlist entries sorted by name, keys
 * in Hasura's order (query_collections, allowlist, inherited_roles, then graphql_schema_introspection), and
 * empty lists and options left out. Every stored metadata object is normalised, so exports are stable.
 */
export function normalizeMetadata(metadata: Metadata): Metadata {
  const out: Metadata = { version: 3, sources: metadata.sources.map(normalizeSource).sort(byName) };
  if (metadata.remote_schemas !== undefined && metadata.remote_schemas.length > 0) {
    out.remote_schemas = metadata.remote_schemas.map(normalizeRemoteSchema).sort(byName);
  }
  const limits = normalizeApiLimits(metadata.api_limits);
  if (limits !== undefined) out.api_limits = limits;
  if (metadata.query_collections !== undefined && metadata.query_collections.length > 0) {
    out.query_collections = metadata.query_collections.map(normalizeQueryCollection).sort(byName);
  }
  if (metadata.allowlist !== undefined && metadata.allowlist.length > 0) {
    out.allowlist = metadata.allowlist.map(normalizeAllowlistEntry).sort((a, b) => compare(a.collection, b.collection));
  }
  if (metadata.inherited_roles !== undefined && metadata.inherited_roles.length > 0) {
    out.inherited_roles = metadata.inherited_roles
      .map(({ role_name, role_set, comment }) => ({ role_name, role_set: [...role_set], ...(comment === undefined || comment === null ? {} : { comment }) }))
      .sort((a, b) => compare(a.role_name, b.role_name));
  }
  const disabled = metadata.graphql_schema_introspection?.disabled_for_roles ?? [];
  if (disabled.length > 0) out.graphql_schema_introspection = { disabled_for_roles: [...new Set(disabled)].sort(compare) };
  return out;
}
