import type { QueryEndpoint } from '../../../src/bus/messages/requests.js';
import { metadataRequest } from './metadata-api.js';
import { dataRequest } from './query-v2-api.js';
import type { QueryRequest } from './request.js';

/**
 * One operation of a request as the registry names it, by the endpoint it came in on:
 * `/v1/query` serves every operation by its own name; `/v1/metadata` the metadata
 * operations, under Hasura's `pg_` names too; `/v2/query` the data operations. Applied to
 * each member of a bulk as well.
 */
export function operationFor(endpoint: QueryEndpoint, request: QueryRequest, path: string): QueryRequest {
  if (endpoint === 'v1/metadata') return metadataRequest(request, path);
  if (endpoint === 'v2/query') return dataRequest(request, path);
  return request;
}

/** The `resource_version` a metadata change must be based on: only `/v1/metadata` reads it, as Hasura. */
export function requiredResourceVersion(endpoint: QueryEndpoint, request: QueryRequest): number | undefined {
  return endpoint === 'v1/metadata' ? request.resource_version : undefined;
}
