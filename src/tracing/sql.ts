import { createHash } from 'node:crypto';
import type { PoolClient } from '../pg/pool.js';
import { answerOf, isSubmittedQuery } from '../pg/submitted-query.js';
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
        const query = args[0];
        if (!isSubmittedQuery(query)) return traced(`sql ${label}`, trace, options, () => (target.query as (...a: unknown[]) => Promise<unknown>)(...args));
        // The span lasts until the statement is answered; the caller hears of it through the query's callback.
        const answer = query.callback;
        void traced(`sql ${label}`, trace, options, async () => {
          const { error, result } = await answerOf(target, query);
          answer(error, result);
          if (error !== undefined && error !== null) throw error;
        }).catch(() => undefined);
        return query;
      };
    },
  });
}

function describeStatement(statement: unknown): { label: string; attributes: Record<string, string> } {
  const config = typeof statement === 'string' ? { text: statement } : (statement as { name?: string; text?: string });
  const hash = createHash('sha1').update(config.text ?? '').digest('hex').slice(0, 16);
  const attributes: Record<string, string> = { 'db.system.name': 'postgresql', 'db.statement.hash': hash };
  if (config.name !== undefined) attributes['db.statement.name'] = config.name;
  return { label: config.name ?? hash, attributes };
}
