import { ROOT_CONTEXT, defaultTextMapGetter, defaultTextMapSetter, trace, type TextMapGetter } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { tracingEnabled, type TraceContext } from './tracer.js';

/** W3C Trace Context (`traceparent`, `tracestate`): over HTTP, and in NATS message headers. */
const propagator = new W3CTraceContextPropagator();

export const TRACEPARENT = 'traceparent';

/** Adds `traceparent` (and `tracestate`) of `context` to `headers`; nothing when tracing is off. */
export function injectTrace(context: TraceContext | undefined, headers: Record<string, string>): void {
  if (context === undefined) return;
  propagator.inject(context, headers, defaultTextMapSetter);
}

/** The caller's trace from headers read with `getter`; undefined when there is none or tracing is off. */
export function extractTrace<C>(carrier: C, getter: TextMapGetter<C>): TraceContext | undefined {
  if (!tracingEnabled() || getter.get(carrier, TRACEPARENT) === undefined) return undefined;
  const context = propagator.extract(ROOT_CONTEXT, carrier, getter);
  return trace.getSpanContext(context) === undefined ? undefined : context;
}

/** Headers as a plain object (HTTP requests, flattened headers). */
export function extractTraceFromRecord(headers: Record<string, string | string[] | undefined>): TraceContext | undefined {
  return extractTrace(headers, defaultTextMapGetter);
}

/** Reads NATS message headers (`get` answers '' for a header that is not there). */
export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  get: (headers, key) => headers?.get(key) || undefined,
  keys: (headers) => headers?.keys() ?? [],
};

/** The `traceparent` (and `tracestate`) headers that send `context` on over HTTP. */
export function traceHeaders(context: TraceContext): Record<string, string> {
  const headers: Record<string, string> = {};
  injectTrace(context, headers);
  return headers;
}
