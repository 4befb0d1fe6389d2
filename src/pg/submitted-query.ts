import type pg from 'pg';

/** A query object node-postgres runs as it is (`pg.Query`), answering through its callback. */
export interface SubmittedQuery {
  submit: (connection: unknown) => void;
  callback: (error: Error | null | undefined, result?: unknown) => void;
}

export interface Answer {
  error: Error | null | undefined;
  result?: unknown;
}

export function isSubmittedQuery(config: unknown): config is SubmittedQuery {
  return typeof config === 'object' && config !== null && typeof (config as Partial<SubmittedQuery>).submit === 'function' && typeof (config as Partial<SubmittedQuery>).callback === 'function';
}

/**
 * Hands `query` to `client` and resolves with node-postgres' answer, without calling the
 * query's own callback: `client.query` gives a query object back at once, so a wrapper that
 * must last as long as the statement (a span, a test's transaction) waits here and then
 * passes the answer on.
 */
export function answerOf(client: Pick<pg.ClientBase, 'query'>, query: SubmittedQuery): Promise<Answer> {
  return new Promise((resolve) => {
    query.callback = (error, result) => resolve({ error, result });
    try {
      client.query(query as unknown as pg.Submittable);
    } catch (error) {
      resolve({ error: error as Error });
    }
  });
}
