import type { Config } from '../config/load.js';
import { TRACES_SAMPLERS, type TracesSampler } from '../config/options.js';

/** Where spans go and which requests make them, when tracing is on. */
export interface TracingSettings {
  url: string;
  serviceName: string;
  sampler: TracesSampler;
  ratio: number;
}

/**
 * Reads the tracing settings: each `SERVICE_GRAPHQL_OTEL_*` option, else the standard
 * `OTEL_*` variable of the OpenTelemetry SDK specification. Without an endpoint tracing
 * is off: undefined, and no span is ever made.
 */
export function tracingSettings(config: Config, env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const tracesUrl = config.otelExporterOtlpTracesEndpoint ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const baseUrl = config.otelExporterOtlpEndpoint ?? nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  // The specification: a signal's own endpoint is used as it is, the base one gets /v1/traces.
  const url = tracesUrl ?? (baseUrl === undefined ? undefined : `${baseUrl.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return undefined;
  const envSampler = nonEmpty(env.OTEL_TRACES_SAMPLER);
  const sampler = config.otelTracesSampler ?? (TRACES_SAMPLERS.includes(envSampler as TracesSampler) ? (envSampler as TracesSampler) : 'parentbased_always_on');
  const envRatio = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = config.otelTracesSamplerArg ?? (env.OTEL_TRACES_SAMPLER_ARG !== undefined && envRatio >= 0 && envRatio <= 1 ? envRatio : 1);
  return { url, serviceName: config.otelServiceName ?? nonEmpty(env.OTEL_SERVICE_NAME) ?? 'service-graphql', sampler, ratio };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
