import { describe, expect, it } from 'vitest';
import { qualified, quoteIdent } from './quote.js';

describe('quoteIdent', () => {
  it('double-quotes identifiers and doubles embedded quotes', () => {
    expect(quoteIdent('author')).toBe('"author"');
    expect(quoteIdent('we"ird; drop table x')).toBe('"we""ird; drop table x"');
    expect(qualified('public', 'Author')).toBe('"public"."Author"');
  });

  it('refuses a NUL character, which Postgres cannot store in a name', () => {
    expect(() => quoteIdent('a\u0000b')).toThrow(/NUL/);
  });
});
