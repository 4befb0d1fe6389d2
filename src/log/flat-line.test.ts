import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFlatLine } from './flat-line.js';
import { createLogger } from './logger.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) });
  return { lines, log: createLogger('info', sink).child({ actor: 'edge', instance: 'vm-1-"x"' }) };
}

describe('writeFlatLine', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 10, 27, 12, 0, 0, 7));
  });
  afterEach(() => vi.useRealTimers());

  const cases: Array<Record<string, unknown>> = [
    {},
    { method: 'POST', path: '/v1/graphql', status: 200, ms: 0.57, role: 'admin', operation: undefined, requestId: 'ABC' },
    { quote: 'say "hi"', backslash: 'C:\\dir', newline: 'a\nb', control: '\u0001\u001f', tab: '\t', empty: '' },
    { accents: 'café ümlaut', emoji: '🚀', cjk: '漢字', separator: '\u2028' },
    { negative: -3, float: 1.5e-7, big: 12345678901234, notFinite: Number.NaN, infinite: Number.POSITIVE_INFINITY, zero: -0 },
    { yes: true, no: false, gone: undefined, 'odd key "x"': 'v', 'ключ': 1 },
  ];

  it('writes each line byte for byte as pino writes it', () => {
    for (const fields of cases) {
      for (const level of ['info', 'warn'] as const) {
        const flat = capture();
        const pino = capture();
        expect(writeFlatLine(flat.log, level, 'http-log', fields, 'request "done"')).toBe(true);
        pino.log[level]({ type: 'http-log', ...fields }, 'request "done"');
        expect(flat.lines).toEqual(pino.lines);
      }
    }
  });

  it('writes the members of a raw JSON object after the fields, as pino writes them merged', () => {
    for (const raw of ['{}', '{"operationType":"query","authMs":0.05,"note":"a \\"quoted\\" \\u0001 value"}']) {
      const flat = capture();
      const pino = capture();
      expect(writeFlatLine(flat.log, 'info', 'http-log', { status: 200, sendMs: undefined }, 'request', raw)).toBe(true);
      pino.log.info({ type: 'http-log', status: 200, ...(JSON.parse(raw) as object) }, 'request');
      expect(flat.lines).toEqual(pino.lines);
    }
  });

  it('leaves to pino a line with an object, an array, a bigint or its own `type`, writing nothing', () => {
    for (const fields of [{ nested: { a: 1 } }, { list: ['a'] }, { none: null }, { count: 1n }, { type: 'other' }]) {
      const { lines, log } = capture();
      expect(writeFlatLine(log, 'info', 'http-log', fields, 'request')).toBe(false);
      expect(lines).toEqual([]);
    }
  });
});
