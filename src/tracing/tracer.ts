import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from './settings.js';

export { SpanKind };

/**
 * The trace a piece of work belongs to, handed from caller to callee explicitly (no
 * async hooks): undefined whenever tracing is off.
 */
export type TraceContext = Context;

let provider: BasicTracerProvider | undefined;
let tracer: Tracer | undefined;
/** Engines of this process that turned tracing on: the provider is the process's, shared by them. */
let users = 0;

/**
 * Turns tracing on for this process: spans are batched and sent by OTLP over HTTP (JSON).
 * A second engine in the same process shares the first one's provider; each engine that
 * called this calls `stopTracing` once, and the last one stops it.
 */
export function startTracing(settings: TracingSettings, instance: string): void {
  users++;
  if (provider !== undefined) return;
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, 'service.instance.id': instance }),
    sampler: samplerFor(settings),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url }))],
  });
  tracer = provider.getTracer('service-graphql');
}

/** Sends the spans still batched, then turns tracing off once no engine of the process uses it. */
export async function stopTracing(): Promise<void> {
  if (users === 0) return;
  users--;
  if (users > 0) return;
  const stopping = provider;
  provider = undefined;
  tracer = undefined;
  await stopping?.shutdown();
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
}

/** A span begun, and the context its children take as their parent. */
export interface OpenSpan {
  readonly span: Span;
  readonly context: TraceContext;
}

/**
 * Begins a span, a child of `parent` or the root of a new trace. Undefined when tracing
 * is off: callers skip their span work on that one check.
 */
export function openSpan(name: string, parent: TraceContext | undefined, options: SpanOptions = {}): OpenSpan | undefined {
  if (tracer === undefined) return undefined;
  const base = parent ?? ROOT_CONTEXT;
  const span = tracer.startSpan(name, options, base);
  return { span, context: trace.setSpan(base, span) };
}

/**
 * Ends a span, marked failed when `error` is given: with its code (a SQLSTATE, a service
 * error's code), never its message, which may quote what a caller sent (PostgreSQL's
 * `invalid input syntax for type integer: "abc"`).
 */
export function closeSpan(open: OpenSpan | undefined, error?: unknown): void {
  if (open === undefined) return;
  if (error !== undefined) {
    const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : undefined;
    failSpan(open.context, code ?? (error instanceof Error ? error.name : 'error'));
  }
  open.span.end();
}

/**
 * Runs `work` inside a child span of `parent`, handing it the span's context. Work of no
 * traced request (a WebSocket's, a background task's) makes no span.
 */
export function traced<T>(name: string, parent: TraceContext | undefined, options: SpanOptions, work: (context: TraceContext | undefined) => Promise<T>): Promise<T> {
  return parent === undefined ? work(undefined) : within(openSpan(name, parent, options), parent, work);
}

/**
 * Runs `work` inside a span where work enters the engine (an HTTP request, a webhook
 * delivery): a child of the caller's span when there is one, else the root of a new trace.
 */
export function tracedEntry<T>(name: string, caller: TraceContext | undefined, options: SpanOptions, work: (context: TraceContext | undefined) => Promise<T>): Promise<T> {
  return within(openSpan(name, caller, options), caller, work);
}

async function within<T>(open: OpenSpan | undefined, parent: TraceContext | undefined, work: (context: TraceContext | undefined) => Promise<T>): Promise<T> {
  if (open === undefined) return work(parent);
  try {
    const result = await work(open.context);
    closeSpan(open);
    return result;
  } catch (error) {
    closeSpan(open, error);
    throw error;
  }
}

/** Sets an attribute on the span of `context`, learnt after the span began (a response status). */
export function annotateSpan(context: TraceContext | undefined, key: string, value: string | number | boolean): void {
  if (context !== undefined) trace.getSpan(context)?.setAttribute(key, value);
}

/** Marks the context's span failed, with the error's code (never a message: it may quote a caller's value). */
export function failSpan(context: TraceContext | undefined, code: string): void {
  const span = context === undefined ? undefined : trace.getSpan(context);
  span?.setStatus({ code: SpanStatusCode.ERROR });
  span?.setAttribute('error.type', code);
}

function samplerFor(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.ratio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}
