/** The parts of exported metadata (version 3) the console reads. */
export interface QualifiedName {
  schema: string;
  name: string;
}

export interface Permission {
  role: string;
  permission: Record<string, unknown>;
}

export interface Relationship {
  name: string;
  using: Record<string, unknown>;
}

export interface EventTrigger {
  name: string;
  definition: Record<string, unknown>;
  webhook?: string;
  webhook_from_env?: string;
  retry_conf?: Record<string, unknown>;
}

export interface ComputedField {
  name: string;
  definition: { function: QualifiedName; table_argument?: string; session_argument?: string };
  comment?: string;
}

export interface TableMetadata {
  table: QualifiedName;
  object_relationships?: Relationship[];
  array_relationships?: Relationship[];
  select_permissions?: Permission[];
  insert_permissions?: Permission[];
  update_permissions?: Permission[];
  delete_permissions?: Permission[];
  event_triggers?: EventTrigger[];
  computed_fields?: ComputedField[];
}

export interface FunctionMetadata {
  function: QualifiedName;
  configuration?: Record<string, unknown>;
}

export interface RemoteSchema {
  name: string;
  definition: { url?: string; url_from_env?: string; timeout_seconds?: number; forward_client_headers?: boolean; headers?: unknown[] };
  comment?: string;
}

export interface Metadata {
  version: number;
  sources?: { name: string; tables: TableMetadata[]; functions?: FunctionMetadata[] }[];
  remote_schemas?: RemoteSchema[];
  [key: string]: unknown;
}

export const PERMISSION_KINDS = ['select', 'insert', 'update', 'delete'] as const;
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

export const tableKey = (table: QualifiedName): string => `${table.schema}.${table.name}`;

export function tablesOf(metadata: Metadata): TableMetadata[] {
  return metadata.sources?.flatMap((source) => source.tables) ?? [];
}

export function functionsOf(metadata: Metadata): FunctionMetadata[] {
  return metadata.sources?.flatMap((source) => source.functions ?? []) ?? [];
}

/** Every role some permission names, sorted: the rows of the permission matrix and the role switcher's choices. */
export function rolesOf(metadata: Metadata): string[] {
  const roles = new Set<string>();
  for (const table of tablesOf(metadata)) {
    for (const kind of PERMISSION_KINDS) for (const permission of table[`${kind}_permissions`] ?? []) roles.add(permission.role);
  }
  return [...roles].sort();
}
