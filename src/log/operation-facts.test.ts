import { describe, expect, it } from 'vitest';
import { REPLY_META } from '../bus/wire.js';
import { newOperationFacts, operationMeta } from './operation-facts.js';

function meta(operations: Array<{ name: string | null; type: string | null }>, extra: { errorCode?: string } = {}) {
  const facts = { ...newOperationFacts(), operations, sqlMs: 1.234 };
  const result = operationMeta(facts, { authMs: 0.056, planMs: 2 }, { queryHash: 'h', ...extra });
  return { result, fields: JSON.parse(result[REPLY_META.logFields]!) as Record<string, unknown> };
}

describe('operationMeta', () => {
  it('carries the log facts as one JSON object, numbers rounded to hundredths', () => {
    const { result, fields } = meta([{ name: 'Authors', type: 'query' }]);
    expect(fields).toEqual({ operationName: 'Authors', operationType: 'query', queryHash: 'h', authMs: 0.06, planMs: 2, sqlMs: 1.23 });
    expect(result[REPLY_META.operationType]).toBe('query');
    expect(result[REPLY_META.errorCode]).toBeUndefined();
  });

  it('names a batch comma-separated, and leaves out names and types that no operation has', () => {
    expect(meta([{ name: 'A', type: 'query' }, { name: null, type: 'mutation' }]).fields).toMatchObject({ operationName: 'A,', operationType: 'query,mutation' });
    const { result, fields } = meta([{ name: '', type: null }, { name: null, type: null }]);
    expect(fields.operationName).toBeUndefined();
    expect(fields.operationType).toBeUndefined();
    expect(result[REPLY_META.operationType]).toBeUndefined();
    expect(meta([]).fields.operationName).toBeUndefined();
  });

  it('gives the error code both in the log facts and on its own, for the request span', () => {
    const { result, fields } = meta([{ name: null, type: null }], { errorCode: 'validation-failed' });
    expect(fields.errorCode).toBe('validation-failed');
    expect(result[REPLY_META.errorCode]).toBe('validation-failed');
  });
});
