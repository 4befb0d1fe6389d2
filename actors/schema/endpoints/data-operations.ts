import { DATA_API_OPERATIONS } from '../operations/data/operations.js';

/**
 * The operations that read or write rows rather than metadata: `run_sql` and the v1 data
 * API's. Hasura serves exactly these on `/v2/query` (Server/API/V2Query.hs) and has no name
 * for them on `/v1/metadata`; `/v1/query` serves them with everything else.
 */
// In the order Hasura's refusal lists them.
export const DATA_OPERATIONS: readonly string[] = [...DATA_API_OPERATIONS.map((operation) => operation.type), 'run_sql'];

export function isDataOperation(type: string): boolean {
  return DATA_OPERATIONS.includes(type);
}
