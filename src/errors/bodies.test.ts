import { describe, expect, it } from 'vitest';
import { graphqlErrorBody, queryErrorJson } from './bodies.js';
import { errors } from './errors.js';

const decode = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;

describe('error bodies of the one registry', () => {
  const failed = errors.constraintViolation('$.selectionSet.insert_t', 'Uniqueness violation', 'duplicate key').withInternal({ statement: 'insert ...' });

  it('encode a /v1/graphql error without data, internal only when shown', () => {
    expect(decode(graphqlErrorBody([failed]))).toEqual({
      errors: [{ message: 'Uniqueness violation. duplicate key', extensions: { path: '$.selectionSet.insert_t', code: 'constraint-violation' } }],
    });
    expect(decode(graphqlErrorBody([failed], true))).toMatchObject({ errors: [{ extensions: { internal: { statement: 'insert ...' } } }] });
  });

  it('encode a /v1/query error with the same code and text', () => {
    expect(JSON.parse(queryErrorJson(failed, false))).toEqual({ path: '$.selectionSet.insert_t', error: 'Uniqueness violation. duplicate key', code: 'constraint-violation' });
    expect(JSON.parse(queryErrorJson(failed, true))).toHaveProperty('internal');
  });

  it('keep what an error was raised for as its cause', () => {
    const cause = new Error('23505');
    expect(errors.databaseQueryFailed('$').causedBy(cause).cause).toBe(cause);
  });

  it('give every entry a stable kebab-case code and an HTTP status', () => {
    for (const [name, entry] of Object.entries(errors)) {
      expect(entry.code, name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect([200, 400, 401, 403, 404, 405, 409, 413, 429, 500, 503], name).toContain(entry.status);
    }
  });
});
