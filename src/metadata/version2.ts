import { defaultSource, type AllowlistEntry, type FunctionEntry, type Metadata, type QueryCollectionEntry, type RemoteSchemaEntry, type TableEntry } from './types.js';

/**
 * Metadata in the version 2 format (Hasura v1.2/v1.3: `tables` at the top level, no
 * sources), which replace_metadata still accepts and applies to the default source.
 */
export interface MetadataV2 {
  version: 2;
  tables?: TableEntry[];
  functions?: (FunctionEntry | { schema: string; name: string })[];
  remote_schemas?: RemoteSchemaEntry[];
  query_collections?: QueryCollectionEntry[];
  allowlist?: AllowlistEntry[];
}

export function isVersion2(value: unknown): value is MetadataV2 {
  return typeof value === 'object' && value !== null && (value as { version?: unknown }).version === 2;
}

export function fromVersion2(v2: MetadataV2): Metadata {
  const functions = (v2.functions ?? []).map((fn) => ('function' in fn ? fn : { function: { schema: fn.schema, name: fn.name } }));
  const metadata: Metadata = { version: 3, sources: [defaultSource(v2.tables ?? [], functions)] };
  if (v2.remote_schemas !== undefined) metadata.remote_schemas = v2.remote_schemas;
  if (v2.query_collections !== undefined) metadata.query_collections = v2.query_collections;
  if (v2.allowlist !== undefined) metadata.allowlist = v2.allowlist;
  return metadata;
}
