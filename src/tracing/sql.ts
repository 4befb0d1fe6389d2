import { createHash } from 'node:crypto';
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
        return traced(`sql ${label}`, trace, { kind: SpanKind.CLIENT, attributes }, () => (target.query as (...a: unknown[]) => Promise<unknown>)(...args));
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
