/** One operation of a JSON API request (schemas/query/request.json): `bulk` holds more of them in `args`. */
export interface QueryRequest {
  type: string;
  args?: unknown;
  version?: number;
  /** `/v1/metadata` only: the metadata version the caller read; a change based on another one is refused. */
  resource_version?: number;
}
