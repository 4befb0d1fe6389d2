/** Hasura's `operation_type` label values; `unknown` when the body names no runnable operation. */
export type OperationType = 'query' | 'mutation' | 'subscription' | 'unknown';

/** JSON-escaped or literal white space, commas and `#` comments, as they appear inside the body's "query" string. */
const IGNORED = String.raw`(?:\s|,|\\[nrt]|#(?:[^\\]|\\[^n])*(?:\\n|$))*`;
const SEPARATOR = String.raw`(?:\s|\\[nrt])+`;
const FIRST = new RegExp(String.raw`"query"\s*:\s*"${IGNORED}(\{|query\b|mutation\b|subscription\b)`);
const OPERATION_NAME = /"operationName"\s*:\s*"([_A-Za-z][_0-9A-Za-z]*)"/;
/** A keyword starts after a non-name character or after an escape such as `\n` (whose `n` is a name character). */
const NAMED = new RegExp(String.raw`(?:(?<=\\[nrt])|(?<![_0-9A-Za-z]))(query|mutation|subscription)${SEPARATOR}([_A-Za-z][_0-9A-Za-z]*)`, 'g');

/**
 * The operation type of a `/v1/graphql` body from its JSON text, without parsing either
 * the JSON or the GraphQL: the metrics must not cost a parse per request (the parsed
 * document lives in the schema actor's plan cache, behind the executor). The operation
 * `operationName` names, else the document's first (`{` is a query); a document that
 * starts with a fragment is `unknown`, and a batch is labelled by its first request.
 */
export function operationTypeOf(body: string): OperationType {
  const named = OPERATION_NAME.exec(body)?.[1];
  if (named !== undefined) {
    NAMED.lastIndex = 0;
    for (let match = NAMED.exec(body); match !== null; match = NAMED.exec(body)) {
      if (match[2] === named) return match[1] as OperationType;
    }
    return 'unknown';
  }
  const first = FIRST.exec(body)?.[1];
  if (first === undefined) return 'unknown';
  return first === '{' ? 'query' : (first as OperationType);
}
