import { describe, expect, it } from 'vitest';
import { operationTypeOf } from './operation-type.js';

const body = (query: string, operationName?: string): string => JSON.stringify({ query, ...(operationName === undefined ? {} : { operationName }) });

describe('operationTypeOf', () => {
  it('reads the first operation, a bare selection set being a query', () => {
    expect(operationTypeOf(body('{ a }'))).toBe('query');
    expect(operationTypeOf(body('  # a comment\n\tmutation M { a }'))).toBe('mutation');
    expect(operationTypeOf(body('subscription { a }'))).toBe('subscription');
    expect(operationTypeOf(`[${body('mutation { a }')},${body('{ b }')}]`)).toBe('mutation');
  });
  it('reads the operation operationName chooses', () => {
    expect(operationTypeOf(body('query Q { a }\nmutation\nM { b }', 'M'))).toBe('mutation');
    expect(operationTypeOf(body('query Q { a }', 'Missing'))).toBe('unknown');
  });
  it('answers unknown for what names no operation', () => {
    expect(operationTypeOf(body('fragment F on T { a } query { ...F }'))).toBe('unknown');
    expect(operationTypeOf('{"query": 42}')).toBe('unknown');
    expect(operationTypeOf('not json')).toBe('unknown');
  });
});
