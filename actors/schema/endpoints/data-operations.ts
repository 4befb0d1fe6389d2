/**
 * The operations that read or write rows rather than metadata. Hasura serves exactly these
 * on `/v2/query` (Server/API/V2Query.hs) and has no name for them on `/v1/metadata`;
 * `/v1/query` serves them with everything else. This list is the one place that decides
 * it: an operation registered later reaches the right endpoints by being named here, and
 * a name listed before its operation is registered answers unknown-operation.
 */
export const DATA_OPERATIONS: readonly string[] = ['select', 'insert', 'update', 'delete', 'count', 'run_sql'];

export function isDataOperation(type: string): boolean {
  return DATA_OPERATIONS.includes(type);
}
