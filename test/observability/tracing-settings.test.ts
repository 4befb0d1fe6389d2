import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { tracingSettings } from '../../src/tracing/settings.js';

const base = { SERVICE_GRAPHQL_DATABASE_URL: 'postgres://localhost/x' };
const settings = (env: Record<string, string>) => tracingSettings(loadConfig(new Map(), { ...base, ...env }), { ...base, ...env });

describe('tracing settings', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(settings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });

  it('sends to <endpoint>/v1/traces, or to the traces endpoint as it is', () => {
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).toBe('http://collector:4318/v1/traces');
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b/traces' })?.url).toBe('http://b/traces');
  });

  it('takes SERVICE_GRAPHQL_OTEL_* over OTEL_*, and the specification defaults otherwise', () => {
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' })).toEqual({ url: 'http://a:4318/v1/traces', serviceName: 'service-graphql', sampler: 'parentbased_always_on', ratio: 1 });
    expect(
      settings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        SERVICE_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318',
        OTEL_SERVICE_NAME: 'standard',
        SERVICE_GRAPHQL_OTEL_SERVICE_NAME: 'ours',
        OTEL_TRACES_SAMPLER: 'always_on',
        SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.5',
      }),
    ).toEqual({ url: 'http://b:4318/v1/traces', serviceName: 'ours', sampler: 'parentbased_traceidratio', ratio: 0.5 });
  });

  it('refuses a sampler or ratio it does not know in its own options', () => {
    expect(() => settings({ SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER/);
    expect(() => settings({ SERVICE_GRAPHQL_OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/from 0 to 1/);
  });
});
