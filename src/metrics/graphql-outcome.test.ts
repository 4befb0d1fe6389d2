import { describe, expect, it } from 'vitest';
import { EngineMetrics } from './engine-metrics.js';
import { REPLY_META } from '../bus/wire.js';
import { recordGraphql } from './graphql-outcome.js';

const text = (value: string) => new TextEncoder().encode(value);
/** A reply of a query the executor ran. */
const reply = (body: string) => ({ body: text(body), meta: { [REPLY_META.operationType]: 'query' } });
const asQuery = { [REPLY_META.operationType]: 'query' };

async function requests(record: (metrics: EngineMetrics) => void): Promise<string[]> {
  const metrics = new EngineMetrics(async () => undefined);
  record(metrics);
  return (await metrics.scrape()).split('\n').filter((line) => line.startsWith('service_graphql_requests_total{') && !line.endsWith(' 0'));
}

describe('recordGraphql', () => {
  it('counts data as success and an errors answer, a batch led by one, or a throw as failed', async () => {
    expect(await requests((metrics) => recordGraphql(metrics, { body: text('{"data":{"a":1}}'), meta: asQuery }, 0.01))).toEqual([
      'service_graphql_requests_total{operation_type="query",response_status="success"} 1',
    ]);
    expect(
      await requests((metrics) => {
        recordGraphql(metrics, reply('{"errors":[{"message":"no"}]}'), 0.01);
        recordGraphql(metrics, reply('[{"errors":[]},{"data":{}}]'), 0.01);
        recordGraphql(metrics, null, 0);
      }),
    ).toEqual(['service_graphql_requests_total{operation_type="query",response_status="failed"} 2', 'service_graphql_requests_total{operation_type="unknown",response_status="failed"} 1']);
  });

  it('times successful queries only', async () => {
    const metrics = new EngineMetrics(async () => undefined);
    recordGraphql(metrics, reply('{"data":{}}'), 0.02);
    recordGraphql(metrics, reply('{"errors":[]}'), 5);
    const scraped = await metrics.scrape();
    expect(scraped).toContain('service_graphql_execution_time_seconds_count{operation_type="query"} 1');
    expect(scraped).toContain('service_graphql_execution_time_seconds_sum{operation_type="query"} 0.02');
  });
});
