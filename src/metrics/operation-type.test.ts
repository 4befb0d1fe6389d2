import { describe, expect, it } from 'vitest';
import { REPLY_META } from '../bus/wire.js';
import { operationTypeOf } from './operation-type.js';

describe('operationTypeOf', () => {
  it('reads the type the executor recorded, a batch by its first request', () => {
    expect(operationTypeOf({ [REPLY_META.operationType]: 'query' })).toBe('query');
    expect(operationTypeOf({ [REPLY_META.operationType]: 'mutation,query' })).toBe('mutation');
    expect(operationTypeOf({ [REPLY_META.operationType]: 'subscription' })).toBe('subscription');
  });

  it('is unknown when no operation ran', () => {
    expect(operationTypeOf(undefined)).toBe('unknown');
    expect(operationTypeOf({})).toBe('unknown');
    expect(operationTypeOf({ [REPLY_META.operationType]: ',query' })).toBe('unknown');
    expect(operationTypeOf({ [REPLY_META.operationType]: 'fragment' })).toBe('unknown');
  });
});
