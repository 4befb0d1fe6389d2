import { credentialHeaders, type Credentials } from './credentials';

/** An error answer of /v1/query (`{path, error, code}`), or a failed GraphQL request. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * The console's only way to the engine: the public endpoints, with the user's credentials.
 * Every metadata operation is a `/v1/query` call, as a script would make it.
 */
export class EngineClient {
  constructor(readonly credentials: Credentials) {}

  async query<T = unknown>(type: string, args: unknown, version?: number): Promise<T> {
    const response = await fetch('/v1/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentialHeaders(this.credentials, false) },
      body: JSON.stringify(version === undefined ? { type, args } : { type, args, version }),
    });
    const body = (await response.json()) as unknown;
    if (!response.ok) {
      const error = body as { error?: string; code?: string };
      throw new ApiError(error.error ?? `HTTP ${response.status}`, error.code ?? 'unexpected', response.status);
    }
    return body as T;
  }

  /** Rows of a read-only `run_sql`, as objects by column name (the header row gives the names). */
  async sql(sql: string): Promise<Record<string, string | null>[]> {
    const result = await this.query<{ result?: (string | null)[][] }>('run_sql', { sql, read_only: true });
    const [header, ...rows] = result.result ?? [];
    if (header === undefined) return [];
    return rows.map((row) => Object.fromEntries(header.map((name, index) => [name ?? '', row[index] ?? null])));
  }

  async config(): Promise<Record<string, unknown>> {
    const response = await fetch('/v1alpha1/config', { headers: credentialHeaders(this.credentials, false) });
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new ApiError(String(body.error ?? `HTTP ${response.status}`), String(body.code ?? 'unexpected'), response.status);
    return body;
  }
}
