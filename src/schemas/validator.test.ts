import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors/service-error.js';
import { validate } from './validator.js';

function failure(name: string, value: unknown, root = '$.args'): ServiceError {
  try {
    validate(name, value, root);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('JSON Schema validation of /v1/query args', () => {
  it('accepts a valid metadata object', () => {
    const metadata = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'a' } }] }] };
    expect(validate('query/replace_metadata', metadata)).toBe(metadata);
  });

  it('names the missing key and the path of the object that lacks it', () => {
    const error = failure('query/replace_metadata', { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public' } }] }] });
    expect(error.code).toBe('parse-failed');
    expect(error.status).toBe(400);
    expect(error.path).toBe('$.args.sources[0].tables[0].table');
    expect(error.message).toBe('key "name" not found');
  });

  it('names the expected and the encountered type', () => {
    const error = failure('query/replace_metadata', { version: 3, sources: 'nope' });
    expect(error.path).toBe('$.args.sources');
    expect(error.message).toBe('expected Array, but encountered String');
  });

  it('refuses unknown keys, so that a typo is not silently ignored', () => {
    const error = failure('query/reload_metadata', { reload_remote_schema: true });
    expect(error.path).toBe('$.args');
    expect(error.message).toBe('unexpected key "reload_remote_schema"');
  });
});
