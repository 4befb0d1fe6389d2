import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported span, as the test reads it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  /** The spans it links to (an event delivery: the request that wrote the row). */
  links: { traceId: string; spanId: string }[];
  /** The exporting process's `service.name` and `service.instance.id`. */
  service: string;
  instance: string;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived (any path). */
  exports: number;
  close(): Promise<void>;
}

interface JsonValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface JsonKeyValue {
  key: string;
  value: JsonValue;
}
interface JsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonKeyValue[];
  links?: { traceId: string; spanId: string }[];
}
interface JsonExport {
  resourceSpans: { resource: { attributes: JsonKeyValue[] }; scopeSpans: { spans: JsonSpan[] }[] }[];
}

/** An OTLP/HTTP collector on loopback that decodes the JSON encoding of trace exports. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = { url: '', spans: [], exports: 0, close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.exports++;
      if (request.url === '/v1/traces' && (request.headers['content-type'] ?? '').includes('json')) receiver.spans.push(...decodeExport(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonExport));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

function decodeExport(body: JsonExport): ReceivedSpan[] {
  return body.resourceSpans.flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource.attributes);
    return resourceSpans.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: span.parentSpanId === undefined ? '' : hex(span.parentSpanId),
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes ?? []),
        links: (span.links ?? []).map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
        service: String(resource['service.name']),
        instance: String(resource['service.instance.id']),
      })),
    );
  });
}

function attributesOf(list: JsonKeyValue[]): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]));
}

/** OTLP JSON carries ids as hex; base64 (the protobuf JSON mapping) is read too. */
function hex(id: string): string {
  return /^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}
