/**
 * `<p>.requests.cancel` (schemas/bus/request-cancel.json): nobody waits for this request's
 * answer any more. The key is the edge's own, never the client's `x-request-id`, so that
 * one client cannot cancel another's request.
 */
export interface RequestCancel {
  cancel_key: string;
}

/**
 * The HTTP route a `<p>.query` request came in on (schemas/bus/query-request.json): it
 * decides which operations the request may name and under which names.
 */
export type QueryEndpoint = 'v1/query' | 'v1/metadata' | 'v2/query';
