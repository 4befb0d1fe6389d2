import { errors } from '../../../src/errors/errors.js';
import { isOperationType } from '../operations/registry.js';
import { isDataOperation } from './data-operations.js';
import { PG_COMMANDS, UNPREFIXED_COMMANDS } from './hasura-commands.js';
import { refuseOtherBackend, refuseOtherSource } from './one-database.js';
import type { QueryRequest } from './request.js';

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

/**
 * The registry's name for a command: `pg_` taken off the commands Hasura prefixes. A
 * command Hasura has and the engine lacks is `not-supported`; any other name, the data
 * operations included, gets Hasura's answer to a name it does not know.
 */
function commandOf(type: string, path: string): string {
  refuseOtherBackend(type, path);
  const prefixed = type.startsWith(PG_PREFIX);
  const command = prefixed ? type.slice(PG_PREFIX.length) : type;
  if (prefixed && !PG_COMMANDS.includes(command)) throw errors.unknownPostgresCommand(path, command);
  if (isOperationType(command) && !isDataOperation(command)) return command;
  if (prefixed || PG_COMMANDS.includes(command) || UNPREFIXED_COMMANDS.includes(command)) {
    throw errors.notSupported(`${path}.type`, `${JSON.stringify(type)} is a Hasura metadata command this engine does not support`);
  }
  throw errors.unknownMetadataCommand(path, type, type.includes('_') ? type.slice(0, type.indexOf('_')) : type);
}
