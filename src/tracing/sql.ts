import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PoolClient } from '../pg/pool.js';
import { SpanKind, traced, type TraceContext } from './tracer.js';

/**
 * The client as `work` sees it in a traced request: each statement gets a span named by
 * its prepared-statement name, else by a hash of its text. Never the values, never the
 * text: both may hold what a caller sent.
 */
export function tracedClient(client: PoolClient, trace: TraceContext): PoolClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'query') {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        const { label, attributes } = describeStatement(args[0]);
        const options = { kind: SpanKind.CLIENT, attributes };
        const submitted = args[0] as Partial<SubmittedQuery>;
        if (typeof submitted.submit !== 'function' || typeof submitted.callback !== 'function') {
          return traced(`sql ${label}`, trace, options, () => (target.query as (...a: unknown[]) => Promise<unknown>)(...args));
        }
        // node-postgres hands a query object back at once and answers through its callback: the span lasts until then.
        const query = submitted as SubmittedQuery;
        const answer = query.callback;
        void traced(
          `sql ${label}`,
          trace,
          options,
          () =>
            new Promise((resolve, reject) => {
              query.callback = (error, result) => {
                if (error === undefined || error === null) resolve(result);
                else reject(error);
                answer(error, result);
              };
              try {
                target.query(query as unknown as pg.Submittable);
              } catch (error) {
                query.callback(error as Error);
              }
            }),
        ).catch(() => undefined);
        return query;
      };
    },
  });
}

/** A query object node-postgres runs as it is (`pg.Query`), answering through its callback. */
interface SubmittedQuery {
  submit: (connection: unknown) => void;
  callback: (error: Error | null | undefined, result?: unknown) => void;
}

function describeStatement(statement: unknown): { label: string; attributes: Record<string, string> } {
  const config = typeof statement === 'string' ? { text: statement } : (statement as { name?: string; text?: string });
  const hash = createHash('sha1').update(config.text ?? '').digest('hex').slice(0, 16);
  const attributes: Record<string, string> = { 'db.system.name': 'postgresql', 'db.statement.hash': hash };
  if (config.name !== undefined) attributes['db.statement.name'] = config.name;
  return { label: config.name ?? hash, attributes };
}
