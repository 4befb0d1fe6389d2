import { describe, expect, it } from 'vitest';
import type { FunctionFacts } from '../../src/functions/facts.js';
import { describeComputedField } from '../../src/functions/rules/computed-field-rules.js';
import { describeFunction } from '../../src/functions/rules/function-rules.js';
import { relationKey, type CatalogFunction, type CatalogFunctionArg } from '../../src/pg/catalog.js';

/** The functions actor's rules as pure functions: catalog facts in, a description or Hasura's reason out. */
const arg = (name: string | null, type: string, extra: Partial<CatalogFunctionArg> = {}): CatalogFunctionArg => ({
  name, type, typeSchema: 'pg_catalog', typeKind: 'b', elementType: null, mode: 'i', hasDefault: false, ...extra,
});

const fn = (name: string, extra: Partial<CatalogFunction> = {}): CatalogFunction => ({
  schema: 'public', name, oid: 1, volatility: 's', returnsSet: true, returnType: 'article', returnTypeSchema: 'public',
  returnTypeKind: 'c', returnElementType: null, args: [], comment: null, ...extra,
});

const ARTICLE = relationKey('public', 'article');
const facts = (candidate: CatalogFunction, tracked = true): FunctionFacts => ({ candidates: [candidate], relations: [ARTICLE], tracked: tracked ? [ARTICLE] : [] });

describe('describeFunction', () => {
  it('names unnamed arguments arg_1, arg_2... and hides the session argument', () => {
    const verdict = describeFunction(
      { function: { schema: 'public', name: 'f' }, configuration: { session_argument: 's' } },
      facts(fn('f', { args: [arg(null, 'int4'), arg('s', 'json'), arg(null, 'text', { hasDefault: true })] })),
    );
    expect(verdict.ok && verdict.description.arguments.map((slot) => (slot.kind === 'input' ? slot.name : slot.kind))).toEqual(['arg_1', 'session', 'arg_2']);
    expect(verdict.ok && verdict.description.exposedAs).toBe('query');
  });

  it('exposes a VOLATILE function as a mutation unless told otherwise', () => {
    const volatile = fn('v', { volatility: 'v' });
    const entry = { function: { schema: 'public', name: 'v' } };
    const verdict = describeFunction(entry, facts(volatile));
    expect(verdict.ok && verdict.description.exposedAs).toBe('mutation');
    const asQuery = describeFunction({ ...entry, configuration: { exposed_as: 'query' } }, facts(volatile));
    expect(asQuery.ok && asQuery.description.exposedAs).toBe('query');
  });

  it('shows a non-public function qualified', () => {
    const verdict = describeFunction({ function: { schema: 'other', name: 'g' } }, { candidates: [], relations: [], tracked: [] });
    expect(verdict).toEqual({ ok: false, reason: 'in function "other.g": no such function exists in postgres : "other.g"' });
  });

  it('reports an untracked return table only once the shape is right', () => {
    expect(describeFunction({ function: { schema: 'public', name: 'f' } }, facts(fn('f'), false))).toEqual({ ok: false, reason: 'in function "f": table "article" is not tracked' });
  });
});

describe('describeComputedField', () => {
  const author = { schema: 'public', name: 'author' };
  const row = arg('a', 'author', { typeSchema: 'public', typeKind: 'c' });

  it('takes the first argument as the row, the rest as args', () => {
    const verdict = describeComputedField(
      { table: author, columns: ['id'], field: { name: 'label', definition: { function: 'label' } } },
      { candidates: [fn('label', { returnsSet: false, returnType: 'text', returnTypeSchema: 'pg_catalog', returnTypeKind: 'b', args: [row, arg('p', 'text')] })], relations: [], tracked: [] },
    );
    expect(verdict.ok && verdict.description.arguments.map((slot) => slot.kind)).toEqual(['row', 'input']);
    expect(verdict.ok && verdict.description.returns).toEqual({ kind: 'scalar', type: { name: 'text', schema: 'pg_catalog', kind: 'b', elementType: null } });
  });

  it('refuses a return type that is neither a base type nor a table', () => {
    const verdict = describeComputedField(
      { table: author, columns: [], field: { name: 'x', definition: { function: 'x' } } },
      { candidates: [fn('x', { returnType: 'pair', returnsSet: false, args: [row] })], relations: [], tracked: [] },
    );
    expect(verdict).toEqual({ ok: false, reason: 'in table "author": in computed field "x": the computed field "x" cannot be added to table "author" because the function "x" returning type pair is not a BASE type' });
  });
});
