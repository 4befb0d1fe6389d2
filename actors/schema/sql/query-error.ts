/**
 * A request the compiler refuses although graphql-js validated it (a null where a value
 * is needed, `distinct_on` not matching `order_by`...). It becomes a GraphQL error body
 * with Hasura's `validation-failed` code and the JSON path of the offending input.
 */
export class QueryError extends Error {
  override readonly name = 'QueryError';

  constructor(
    message: string,
    readonly path: string,
    readonly code: string = 'validation-failed',
  ) {
    super(message);
  }
}
