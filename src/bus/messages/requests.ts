/** `<p>.requests.cancel` (schemas/bus/request-cancel.json): nobody waits for this request's answer any more. */
export interface RequestCancel {
  request_id: string;
}

/**
 * The HTTP route a `<p>.query` request came in on (schemas/bus/query-request.json): it
 * decides which operations the request may name and under which names.
 */
export type QueryEndpoint = 'v1/query' | 'v1/metadata' | 'v2/query';
