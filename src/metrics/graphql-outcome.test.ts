import { describe, expect, it } from 'vitest';
import { EngineMetrics } from './engine-metrics.js';
import { recordGraphql } from './graphql-outcome.js';

const text = (value: string) => new TextEncoder().encode(value);
const query = JSON.stringify({ query: '{ a }' });

async function requests(record: (metrics: EngineMetrics) => void): Promise<string[]> {
  const metrics = new EngineMetrics(async () => undefined);
  record(metrics);
  return (await metrics.scrape()).split('\n').filter((line) => line.startsWith('service_graphql_requests_total{') && !line.endsWith(' 0'));
}

describe('recordGraphql', () => {
  it('counts data as success and an errors answer, a batch led by one, or a throw as failed', async () => {
    expect(await requests((metrics) => recordGraphql(metrics, query, { body: text('{"data":{"a":1}}'), meta: {} }, 0.01))).toEqual([
      'service_graphql_requests_total{operation_type="query",response_status="success"} 1',
    ]);
    expect(
      await requests((metrics) => {
        recordGraphql(metrics, query, text('{"errors":[{"message":"no"}]}'), 0.01);
        recordGraphql(metrics, query, text('[{"errors":[]},{"data":{}}]'), 0.01);
        recordGraphql(metrics, query, null, 0);
      }),
    ).toEqual(['service_graphql_requests_total{operation_type="query",response_status="failed"} 3']);
  });

  it('times successful queries only', async () => {
    const metrics = new EngineMetrics(async () => undefined);
    recordGraphql(metrics, query, text('{"data":{}}'), 0.02);
    recordGraphql(metrics, query, text('{"errors":[]}'), 5);
    const scraped = await metrics.scrape();
    expect(scraped).toContain('service_graphql_execution_time_seconds_count{operation_type="query"} 1');
    expect(scraped).toContain('service_graphql_execution_time_seconds_sum{operation_type="query"} 0.02');
  });
});
