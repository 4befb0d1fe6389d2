import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDatabase } from '../harness/database.js';

/** One request a webhook fixture received. */
export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: any;
  raw: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long (a hanging webhook). */
  delayMs?: number;
}

/** A real HTTP server on loopback that records every POST and answers as `reply` says. */
export interface Webhook {
  url: string;
  received: Received[];
  reply: (request: Received, index: number) => Reply;
  /** Resolves once `count` requests matched `filter` (all by default). */
  waitFor(count: number, timeoutMs?: number, filter?: (request: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhook(reply: Webhook['reply'] = () => ({ status: 200, body: '{"ok":true}' })): Promise<Webhook> {
  const received: Received[] = [];
  const hook: Webhook = {
    url: '',
    received,
    reply,
    async waitFor(count, timeoutMs = 20_000, filter = () => true) {
      const deadline = Date.now() + timeoutMs;
      while (received.filter(filter).length < count) {
        if (Date.now() > deadline) throw new Error(`webhook got ${received.filter(filter).length} of ${count} expected requests within ${timeoutMs} ms`);
        await sleep(25);
      }
      return received.filter(filter);
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const entry: Received = { at: Date.now(), headers: request.headers, body: safeJson(raw), raw };
      const index = received.length;
      received.push(entry);
      const answer = hook.reply(entry, index);
      const send = () => {
        if (response.destroyed) return;
        response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        response.end(answer.body ?? '{}');
      };
      if (answer.delayMs !== undefined) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return hook;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Tracks tables of schema public, one after the other. */
export async function trackTables(engine: { query(body: unknown): Promise<{ status: number; json: any }> }, tables: string[]): Promise<void> {
  for (const name of tables) {
    const result = await engine.query({ type: 'track_table', args: { table: { schema: 'public', name } } });
    if (result.status !== 200) throw new Error(`track_table ${name}: ${JSON.stringify(result.json)}`);
  }
}

/**
 * Stops what a triggers test started, in the order that lets the database go: the engine
 * (it holds the slot), the webhook, then the capture slot and the database.
 */
export async function stopAll(parts: { engine?: { stop(): Promise<void> }; hook?: Webhook; db?: TestDatabase }): Promise<void> {
  await parts.engine?.stop();
  await parts.hook?.close();
  if (parts.db !== undefined) {
    await parts.db.drop();
  }
}
