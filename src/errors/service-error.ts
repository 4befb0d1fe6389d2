/**
 * The one error value every part of the engine raises for a failure a user can cause.
 * It mirrors Hasura's internal error record (compat-facts 1.1): a JSON path, an HTTP
 * status, a message and a stable kebab-case code, plus optional `internal` detail that
 * only the admin role may see. The endpoint decides how it is serialised.
 */
export interface ServiceErrorJson {
  code: string;
  status: number;
  error: string;
  path: string;
  internal?: unknown;
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly path: string = '$',
    readonly internal?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The same error answered at another JSON path (bulk operations re-root their members). */
  atPath(path: string): ServiceError {
    return new ServiceError(this.code, this.status, this.message, path, this.internal, { cause: this.cause });
  }

  /** The same error with its path read relative to `root` (an actor's `$.definition.url` under `$.args`). */
  under(root: string): ServiceError {
    return this.atPath(`${root}${this.path.slice(1)}`);
  }

  withInternal(internal: unknown): ServiceError {
    return new ServiceError(this.code, this.status, this.message, this.path, internal, { cause: this.cause });
  }

  /** The same error, keeping what it was raised for (a PostgreSQL error, say) as its `cause`. */
  causedBy(cause: unknown): ServiceError {
    return new ServiceError(this.code, this.status, this.message, this.path, this.internal, { cause });
  }

  toJSON(): ServiceErrorJson {
    const json: ServiceErrorJson = { code: this.code, status: this.status, error: this.message, path: this.path };
    if (this.internal !== undefined) json.internal = this.internal;
    return json;
  }

  static fromJSON(json: ServiceErrorJson): ServiceError {
    return new ServiceError(json.code, json.status, json.error, json.path, json.internal);
  }
}

/** An internal bug, never a user-facing message: it surfaces as `unexpected` (500). */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`invariant violated: ${message}`);
}
