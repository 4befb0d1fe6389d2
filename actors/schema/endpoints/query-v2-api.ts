import { errors } from '../../../src/errors/errors.js';
import { DATA_OPERATIONS, isDataOperation } from './data-operations.js';
import { refuseOtherBackend, refuseOtherSource } from './one-database.js';
import type { QueryRequest } from './request.js';

const ACCEPTED: readonly string[] = [...DATA_OPERATIONS, 'bulk'];

/**
 * A `/v2/query` request: a data operation, or a bulk of them; a metadata operation is
 * refused as Hasura refuses a type its RQLQuery does not have. Hasura reads neither
 * `version` nor `resource_version` there, so neither reaches the operation.
 */
export function dataRequest(request: QueryRequest, path: string): QueryRequest {
  refuseOtherBackend(request.type, path);
  if (!ACCEPTED.includes(request.type)) throw errors.notADataOperation(path, request.type, ACCEPTED);
  if (isDataOperation(request.type)) refuseOtherSource(request.args, path);
  return { type: request.type, args: request.args };
}
