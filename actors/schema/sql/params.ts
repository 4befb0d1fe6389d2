import { errors } from '../../../src/errors/errors.js';
/**
 * The parameters of a compiled statement. The statement text is cached and reused across
 * requests, so a parameter names where its value comes from rather than holding it:
 * a constant of the query or of a permission, a GraphQL variable, or a session variable.
 * Values are bound per request by `bindParams` (ARCHITECTURE decision 5: every value is
 * a parameter, never spliced into the text).
 */
export type ParamEncoding =
  /** Passed as is; `pg` turns JS arrays into Postgres array literals. */
  | 'plain'
  /** A json/jsonb value: sent as its JSON text. */
  | 'json'
  /** A list of json/jsonb values (`_in` on a jsonb column): an array of JSON texts. */
  | 'json-list';

export type ParamSource =
  | { kind: 'constant'; value: unknown }
  /** A variable's value, or the part of it at `at` (a leaf of a `where: $w` object). */
  | { kind: 'variable'; name: string; encoding: ParamEncoding; at?: ReadonlyArray<string | number> }
  | { kind: 'session'; name: string }
  /** All session variables as one JSON object (the `service.user` setting of a mutation). */
  | { kind: 'session-json' }
  /** A value the previous statement of the same mutation field returned (its column `name`). */
  | { kind: 'carried'; name: string }
  /** The request's W3C `traceparent`, or null when it is not traced. */
  | { kind: 'trace-parent' };

/** How a statement refers to its parameter number `index` (1-based), cast to `sqlType`. */
export type Placeholder = (index: number, sqlType: string) => string;

/** A bind parameter of the statement itself: `$1::int4`. */
export const BIND_PLACEHOLDER: Placeholder = (index, sqlType) => `$${index}::${sqlType}`;

export class ParamList {
  readonly sources: ParamSource[] = [];
  private readonly shared = new Map<string, number>();

  constructor(private readonly placeholder: Placeholder = BIND_PLACEHOLDER) {}

  /** A parameter of its own, never shared (a streaming cursor, replaced as the stream advances), with its number. */
  addOwn(source: ParamSource, sqlType: string): { placeholder: string; index: number } {
    const index = this.push(source);
    return { placeholder: this.placeholder(index, sqlType), index };
  }

  /** A placeholder cast to `sqlType`; the same variable or session variable at the same type is one parameter. */
  add(source: ParamSource, sqlType: string): string {
    if (source.kind === 'constant') return this.placeholder(this.push(source), sqlType);
    const key = JSON.stringify([source, sqlType]);
    let index = this.shared.get(key);
    if (index === undefined) {
      index = this.push(source);
      this.shared.set(key, index);
    }
    return this.placeholder(index, sqlType);
  }

  private push(source: ParamSource): number {
    this.sources.push(source);
    return this.sources.length;
  }

}

export function encodeValue(value: unknown, encoding: ParamEncoding): unknown {
  if (value === null || value === undefined) return null;
  if (encoding === 'json') return JSON.stringify(value);
  if (encoding === 'json-list') return (value as unknown[]).map((item) => JSON.stringify(item));
  return value;
}

/** The part of a variable's value at `at` (undefined where the value has no such part). */
export function valueAt(value: unknown, at: ReadonlyArray<string | number>): unknown {
  let current = value;
  for (const step of at) {
    if (typeof step === 'number') current = Array.isArray(current) ? current[step] : undefined;
    else current = current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>)[step] : undefined;
  }
  return current;
}

/** The values of a request, in parameter order. Session variable names are lower-case (session.ts). */
export function bindParams(
  sources: readonly ParamSource[],
  variables: Record<string, unknown>,
  sessionVariables: Record<string, string>,
  carried: Record<string, unknown> = {},
  traceParent: string | null = null,
): unknown[] {
  const missing: string[] = [];
  const values = sources.map((source) => {
    if (source.kind === 'constant') return source.value;
    if (source.kind === 'variable') return encodeValue(source.at === undefined ? variables[source.name] : valueAt(variables[source.name], source.at), source.encoding);
    if (source.kind === 'session-json') return JSON.stringify(sessionVariables);
    if (source.kind === 'carried') return carried[source.name] ?? null;
    if (source.kind === 'trace-parent') return traceParent;
    const value = sessionVariables[source.name];
    if (value === undefined) missing.push(source.name);
    return value ?? null;
  });
  if (missing.length > 0) throw errors.sessionVariablesMissing('$', [...new Set(missing)]);
  return values;
}
