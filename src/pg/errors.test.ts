import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresUnavailable } from './errors.js';

describe('postgresUnavailable', () => {
  it('answers connection error (500) when Postgres cannot be reached', async () => {
    const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const failure = await client.connect().then(() => undefined, (error: unknown) => error);
    expect(postgresUnavailable(failure, '$')?.toJSON()).toEqual({ code: 'postgres-error', status: 500, error: 'connection error', path: '$' });
  });

  it('answers max connections for SQLSTATE 53300 and leaves other database errors alone', () => {
    const tooMany = Object.assign(new pg.DatabaseError('sorry, too many clients already', 0, 'error'), { code: '53300' });
    expect(postgresUnavailable(tooMany, '$')?.code).toBe('postgres-max-connections-error');
    const syntax = Object.assign(new pg.DatabaseError('syntax error', 0, 'error'), { code: '42601' });
    expect(postgresUnavailable(syntax, '$')).toBeUndefined();
    expect(postgresUnavailable(new Error('a bug'), '$')).toBeUndefined();
  });
});
