import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, isoTime } from './logger.js';
import { typedLog } from './log-types.js';

describe('isoTime', () => {
  it('writes what toISOString writes, whatever the milliseconds and however the seconds follow', () => {
    const start = Date.UTC(2026, 10, 25, 23, 59, 58, 0);
    for (const now of [start, start + 5, start + 50, start + 999, start + 1000, start + 1001, start + 2_000, start - 1, 0, Date.now()]) {
      expect(isoTime(now)).toBe(`,"time":"${new Date(now).toISOString()}"`);
    }
  });
});

describe('createLogger', () => {
  it('starts a typed line with its type and an untyped one with "unstructured"', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) });
    const log = createLogger('info', sink);
    typedLog(log, 'http-log', ['http-log']).info({ path: '/v1/graphql', status: 200 }, 'request');
    log.info({ path: '/x' }, 'plain');
    const [typed, plain] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(typed!)).toEqual(['level', 'time', 'pid', 'type', 'path', 'status', 'msg']);
    expect(typed).toMatchObject({ type: 'http-log', path: '/v1/graphql', status: 200, msg: 'request' });
    expect(Object.keys(plain!)).toEqual(['level', 'time', 'pid', 'type', 'path', 'msg']);
    expect(plain).toMatchObject({ type: 'unstructured', path: '/x' });
  });

  it("writes a typed line's raw fields after the others, whether or not pino has to write the line", () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) });
    const http = typedLog(createLogger('info', sink), 'http-log', ['http-log']);
    http.info({ status: 200 }, 'request', '{"authMs":0.5}');
    http.info({ status: 200, nested: { a: 1 } }, 'request', '{"authMs":0.5}');
    const [flat, viaPino] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(flat!)).toEqual(['level', 'time', 'pid', 'type', 'status', 'authMs', 'msg']);
    expect(Object.keys(viaPino!)).toEqual(['level', 'time', 'pid', 'type', 'status', 'nested', 'authMs', 'msg']);
  });
});
