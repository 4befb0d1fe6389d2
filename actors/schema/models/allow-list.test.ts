import { describe, expect, it } from 'vitest';
import { emptyMetadata, type Metadata } from '../../../src/metadata/types.js';
import { AllowList, normalizedText } from './allow-list.js';

/** Hasura's normalizeQuery and AST equality, as the allowlist compares documents. */
describe('normalizedText', () => {
  const same = (a: string, b: string) => expect(normalizedText(a)).toBe(normalizedText(b));
  const different = (a: string, b: string) => expect(normalizedText(a)).not.toBe(normalizedText(b));

  it('ignores whitespace, commas and comments', () => {
    same('query Q { a(x: 1) { b c } }', '# listed\nquery   Q {\n  a(x: 1,) {\n    b, c # both\n  }\n}');
  });

  it('compares arguments and input object fields as unordered, and a block string as its value', () => {
    same('{ a(x: 1, y: {p: 1, q: "s"}) @d(m: 1, n: 2) { b } }', '{ a(y: {q: """s""", p: 1}, x: 1) @d(n: 2, m: 1) { b } }');
  });

  it('drops __typename fields, aliased or not, but not inside inline fragments', () => {
    same('{ a { b } }', '{ __typename a { t: __typename b } }');
    same('fragment F on A { b } query { a { ...F } }', 'fragment F on A { __typename b } query { a { ...F } }');
    different('{ a { b } }', '{ a { ... on A { __typename } b } }');
  });

  it('keeps field order, aliases, values, variables and the operation name', () => {
    different('{ a { b c } }', '{ a { c b } }');
    different('{ a { b } }', '{ a { x: b } }');
    different('{ a(x: 1) { b } }', '{ a(x: 2) { b } }');
    different('query Q { a { b } }', 'query R { a { b } }');
    different('query ($v: Int) { a(x: $v) { b } }', 'query ($v: Int = 1) { a(x: $v) { b } }');
  });

  it('is null for text that does not parse', () => {
    expect(normalizedText('{ a { b }')).toBeNull();
  });
});

describe('AllowList', () => {
  const metadata: Metadata = {
    ...emptyMetadata(),
    query_collections: [
      { name: 'shared', definition: { queries: [{ name: 'a', query: '{ a { b } }' }] } },
      { name: 'scoped', definition: { queries: [{ name: 'c', query: '{ c }' }, { name: 'broken', query: '{ c' }] } },
      { name: 'unlisted', definition: { queries: [{ name: 'd', query: '{ d }' }] } },
    ],
    allowlist: [{ collection: 'shared' }, { collection: 'scoped', scope: { global: false, roles: ['editor'] } }],
  };
  const allowList = AllowList.from(metadata);
  const allows = (role: string, query: string) => allowList.allows(role, normalizedText(query)!);

  it('admits globally scoped documents to every role and role-scoped ones to their roles', () => {
    expect(allows('user', '{a{b}}')).toBe(true);
    expect(allows('editor', '{ c }')).toBe(true);
    expect(allows('user', '{ c }')).toBe(false);
  });

  it('admits nothing from a collection outside the allowlist', () => {
    expect(allows('editor', '{ d }')).toBe(false);
  });
});
