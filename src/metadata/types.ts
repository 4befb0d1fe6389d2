/**
 * The metadata object in its version 3 export format (compat-facts section 3), the one
 * shape that is stored, exported, replaced and rebuilt from. `schemas/metadata.json`
 * is its JSON Schema; these types match it.
 */
export interface QualifiedName {
  schema: string;
  name: string;
}

export type ColumnList = '*' | string[];

/** A Hasura boolean expression; its grammar is checked where it is compiled. */
export type BoolExp = Record<string, unknown>;

export interface TableConfiguration {
  custom_name?: string;
  custom_root_fields?: Record<string, string | { name?: string; comment?: string } | null>;
  column_config?: Record<string, { custom_name?: string; comment?: string }>;
  custom_column_names?: Record<string, string>;
  comment?: string;
}

export interface ForeignKeyOn {
  foreign_key_constraint_on: string | string[] | { table: QualifiedName | string; column?: string; columns?: string[] };
}

export interface ManualConfiguration {
  manual_configuration: {
    remote_table: QualifiedName | string;
    column_mapping: Record<string, string>;
    insertion_order?: 'before_parent' | 'after_parent' | null;
  };
}

export interface Relationship {
  name: string;
  using: ForeignKeyOn | ManualConfiguration;
  comment?: string;
}

export interface ComputedField {
  name: string;
  definition: {
    function: QualifiedName | string;
    table_argument?: string;
    session_argument?: string;
  };
  comment?: string;
}

export interface SelectPermission {
  columns: ColumnList;
  computed_fields?: string[];
  filter: BoolExp;
  limit?: number;
  allow_aggregations?: boolean;
  query_root_fields?: string[];
  subscription_root_fields?: string[];
}

export interface InsertPermission {
  check: BoolExp;
  set?: Record<string, unknown>;
  columns?: ColumnList;
  backend_only?: boolean;
}

export interface UpdatePermission {
  columns: ColumnList;
  filter: BoolExp;
  check?: BoolExp | null;
  set?: Record<string, unknown>;
  backend_only?: boolean;
}

export interface DeletePermission {
  filter: BoolExp;
  backend_only?: boolean;
}

export interface PermissionEntry<P> {
  role: string;
  permission: P;
  comment?: string;
}

export interface HeaderConf {
  name: string;
  value?: string;
  value_from_env?: string;
}

/** An event trigger's retry_conf defaults (interface 2.6 and 8). */
export const RETRY_DEFAULTS = { num_retries: 0, interval_sec: 10, timeout_sec: 60 } as const;

/** A remote schema's `timeout_seconds` default (compat-facts 7.1). */
export const REMOTE_TIMEOUT_SECONDS_DEFAULT = 60;

export interface EventTriggerEntry {
  name: string;
  definition: {
    enable_manual?: boolean;
    insert?: { columns: ColumnList; payload?: ColumnList };
    update?: { columns: ColumnList; payload?: ColumnList };
    delete?: { columns: ColumnList; payload?: ColumnList };
  };
  retry_conf: { num_retries: number; interval_sec: number; timeout_sec: number };
  webhook?: string;
  webhook_from_env?: string;
  headers?: HeaderConf[];
}

export interface TableEntry {
  table: QualifiedName;
  is_enum?: boolean;
  configuration?: TableConfiguration;
  object_relationships?: Relationship[];
  array_relationships?: Relationship[];
  computed_fields?: ComputedField[];
  insert_permissions?: PermissionEntry<InsertPermission>[];
  select_permissions?: PermissionEntry<SelectPermission>[];
  update_permissions?: PermissionEntry<UpdatePermission>[];
  delete_permissions?: PermissionEntry<DeletePermission>[];
  event_triggers?: EventTriggerEntry[];
}

export interface FunctionEntry {
  function: QualifiedName;
  configuration?: {
    custom_name?: string;
    custom_root_fields?: { function?: string; function_aggregate?: string };
    session_argument?: string;
    exposed_as?: 'query' | 'mutation';
  };
  permissions?: { role: string }[];
  comment?: string;
}

export interface SourceEntry {
  name: string;
  kind: 'postgres';
  tables: TableEntry[];
  functions?: FunctionEntry[];
  configuration?: Record<string, unknown>;
}

export interface RemoteSchemaEntry {
  name: string;
  definition: {
    url?: string;
    url_from_env?: string;
    timeout_seconds?: number;
    customization?: Record<string, unknown>;
    headers?: HeaderConf[];
    forward_client_headers?: boolean;
  };
  comment?: string;
  permissions?: { role: string; definition: { schema: string }; comment?: string }[];
}

/** One API limit: a value for every role, and values for some roles that replace it. */
export interface Limit<T> {
  global: T;
  per_role: Record<string, T>;
}

export interface RateLimit {
  max_reqs_per_min: number;
  /** Counted per role and client IP, or per role and these session variables' values; absent: per role. */
  unique_params?: 'IP' | string[];
}

/** Hasura's `api_limits` (set_api_limits): bounds on what one request, or one client per minute, may ask. */
export interface ApiLimits {
  disabled: boolean;
  depth_limit?: Limit<number>;
  node_limit?: Limit<number>;
  /** Seconds. */
  time_limit?: Limit<number>;
  batch_limit?: Limit<number>;
  rate_limit?: Limit<RateLimit>;
}

/** A named GraphQL document that an allowlist entry may admit (Hasura's `ListedQuery`). */
export interface ListedQuery {
  name: string;
  query: string;
}

export interface QueryCollectionEntry {
  name: string;
  definition: { queries: ListedQuery[] };
  comment?: string | null;
}

/**
 * Who an allowlisted collection admits: every role (`global: true`, no roles), or the roles
 * listed (`global: false`, at least one, each once); the operations check that shape.
 */
export interface AllowlistScope {
  global: boolean;
  roles?: string[];
}

export interface AllowlistEntry {
  collection: string;
  /** Omitted in input means global; the normal form always carries it, as Hasura's export does. */
  scope?: AllowlistScope;
}

export interface IntrospectionOptions {
  disabled_for_roles: string[];
}

/** Hasura's inherited role: a role whose permissions are combined from those of `role_set` (add_inherited_role). */
export interface InheritedRoleEntry {
  role_name: string;
  role_set: string[];
  comment?: string | null;
}

export interface Metadata {
  version: 3;
  sources: SourceEntry[];
  remote_schemas?: RemoteSchemaEntry[];
  api_limits?: ApiLimits;
  query_collections?: QueryCollectionEntry[];
  allowlist?: AllowlistEntry[];
  inherited_roles?: InheritedRoleEntry[];
  graphql_schema_introspection?: IntrospectionOptions;
}

/** The engine serves one database: its own, the source named `default`. */
export const DEFAULT_SOURCE = 'default';

export function emptyMetadata(): Metadata {
  return { version: 3, sources: [defaultSource([])] };
}

export function defaultSource(tables: TableEntry[], functions?: FunctionEntry[]): SourceEntry {
  const source: SourceEntry = { name: DEFAULT_SOURCE, kind: 'postgres', tables };
  if (functions !== undefined && functions.length > 0) source.functions = functions;
  source.configuration = {
    connection_info: {
      database_url: { from_env: 'SERVICE_GRAPHQL_DATABASE_URL' },
      isolation_level: 'read-committed',
      use_prepared_statements: true,
    },
  };
  return source;
}
