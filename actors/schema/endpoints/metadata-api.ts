import { errors } from '../../../src/errors/errors.js';
import { isOperationType } from '../operations/registry.js';
import { isDataOperation } from './data-operations.js';
import { refuseOtherBackend, refuseOtherSource } from './one-database.js';
import type { QueryRequest } from './request.js';

/**
 * The metadata commands Hasura's `/v1/metadata` names with the `pg_` prefix
 * (Server/API/Backend.hs: source, table, permission, relationship, function, computed
 * field and event trigger commands; `set_table_is_enum` is PostgreSQL's own).
 */
const PG_COMMANDS: readonly string[] = [
  'add_source', 'drop_source', 'update_source', 'get_source_tables',
  'track_table', 'untrack_table', 'track_tables', 'untrack_tables', 'set_table_customization', 'set_apollo_federation_config', 'set_table_is_enum',
  'create_insert_permission', 'create_select_permission', 'create_update_permission', 'create_delete_permission',
  'drop_insert_permission', 'drop_select_permission', 'drop_update_permission', 'drop_delete_permission', 'set_permission_comment',
  'create_object_relationship', 'create_array_relationship', 'drop_relationship', 'rename_relationship', 'set_relationship_comment', 'suggest_relationships',
  'create_remote_relationship', 'update_remote_relationship', 'delete_remote_relationship',
  'track_function', 'untrack_function', 'set_function_customization', 'create_function_permission', 'drop_function_permission',
  'add_computed_field', 'drop_computed_field',
  'create_event_trigger', 'delete_event_trigger', 'redeliver_event', 'invoke_event_trigger', 'get_event_logs', 'get_event_invocation_logs', 'get_event_by_id',
];

const PG_PREFIX = 'pg_';

/** Hasura's `/v1/metadata` version 2 has these two commands only (RQLMetadataV2). */
const VERSION_2_COMMANDS: readonly string[] = ['replace_metadata', 'export_metadata'];

/**
 * The commands whose `/v1/metadata` arguments are the shape `/v1/query` calls version 2
 * (`{table, configuration}`, `{function, configuration}`), under the key that tells them
 * from the bare-name form of version 1, which stays accepted (Hasura's TrackTableV2 parser
 * takes both).
 */
const VERSION_2_SHAPED: Readonly<Record<string, string>> = { track_table: 'table', track_function: 'function' };

/**
 * A `/v1/metadata` request as the registry names it: `pg_track_table` and `track_table`
 * are one operation, `source` may name only the one database, `version` is 1 or 2 as in
 * Hasura (2 for replace_metadata and export_metadata alone), and the data operations are
 * refused with Hasura's answer (it has no metadata command by those names).
 */
export function metadataRequest(request: QueryRequest, path: string): QueryRequest {
  const version = request.version ?? 1;
  if (version > 2) throw errors.metadataApiVersion(`${path}.version`, version);
  if (version === 2) {
    if (!VERSION_2_COMMANDS.includes(request.type)) throw errors.notVersion2Command(`${path}.type`, request.type, VERSION_2_COMMANDS);
    return request;
  }
  if (request.type === 'bulk') return request;
  const type = commandOf(request.type, path);
  refuseOtherSource(request.args, path);
  const shapedBy = VERSION_2_SHAPED[type];
  const args = request.args;
  const v2Shaped = shapedBy !== undefined && typeof args === 'object' && args !== null && shapedBy in args;
  return { type, args, ...(v2Shaped ? { version: 2 } : {}) };
}

/** The registry's name for a command: `pg_` taken off the commands Hasura prefixes. */
function commandOf(type: string, path: string): string {
  refuseOtherBackend(type, path);
  if (type.startsWith(PG_PREFIX)) {
    const command = type.slice(PG_PREFIX.length);
    if (!PG_COMMANDS.includes(command)) throw errors.unknownPostgresCommand(path, command);
    if (!isOperationType(command)) throw errors.notSupported(`${path}.type`, `${JSON.stringify(type)} is a Hasura metadata command this engine does not support`);
    return command;
  }
  if (isDataOperation(type) || !isOperationType(type)) {
    const prefix = type.includes('_') ? type.slice(0, type.indexOf('_')) : type;
    throw errors.unknownMetadataCommand(path, type, prefix);
  }
  return type;
}
