import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { errors } from '../errors/errors.js';
import { formatPath, pointerSegments } from '../errors/json-path.js';
import type { ServiceError } from '../errors/service-error.js';
import { NAME_RULES, type NameFormat } from '../metadata/name-rules.js';

/**
 * The JSON Schemas in `schemas/` (every /v1/query operation's args, every bus message,
 * the metadata object), compiled once. Data from outside is validated here, where it
 * enters; a violation is a `parse-failed` error naming the JSON path that failed.
 */
function findSchemasDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'schemas');
    if (existsSync(join(candidate, 'metadata.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the schemas/ folder of the engine');
    dir = parent;
  }
}

function loadSchemaFiles(dir: string): object[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return loadSchemaFiles(path);
    return entry.name.endsWith('.json') ? [JSON.parse(readFileSync(path, 'utf8')) as object] : [];
  });
}

/** Schemas are named by their path under schemas/ without `.json`: `query/bulk`, `bus/session`. */
const ID_BASE = 'https://service-graphql.local/schemas/';
const idOf = (name: string): string => `${ID_BASE}${name}.json`;

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
for (const [format, rule] of Object.entries(NAME_RULES)) ajv.addFormat(format, { type: 'string', validate: rule.test });
ajv.addSchema(loadSchemaFiles(findSchemasDir()));
const compiled = new Map<string, ValidateFunction>();

function validatorFor(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    validate = ajv.getSchema(idOf(name));
    if (validate === undefined) throw new Error(`no JSON Schema schemas/${name}.json`);
    compiled.set(name, validate);
  }
  return validate;
}

/** Returns the value typed as `T`, or throws `parse-failed` at `root` + the failing path. */
export function validate<T>(name: string, value: unknown, root = '$'): T {
  const check = validatorFor(name);
  if (check(value)) return value as T;
  throw describeFailure(check.errors?.[0], value, root);
}

function describeFailure(error: ErrorObject | undefined, value: unknown, root: string): ServiceError {
  if (error === undefined) return errors.parseFailed(root, 'invalid value');
  const segments = pointerSegments(error.instancePath);
  const path = formatPath(segments, root);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return errors.parseFailed(path, `key ${JSON.stringify(params.missingProperty)} not found`);
    case 'additionalProperties':
      return errors.parseFailed(path, `unexpected key ${JSON.stringify(params.additionalProperty)}`);
    case 'type':
      return errors.parseFailed(path, `expected ${describeType(String(params.type))}, but encountered ${describeValue(valueAt(value, segments))}`);
    case 'enum':
      return errors.parseFailed(path, `unexpected value ${JSON.stringify(valueAt(value, segments))}; expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
    case 'const':
      return errors.parseFailed(path, `expected ${JSON.stringify(params.allowedValue)}, but encountered ${JSON.stringify(valueAt(value, segments))}`);
    case 'format':
      return errors.parseFailed(path, NAME_RULES[params.format as NameFormat].problem(String(valueAt(value, segments))));
    case 'maxLength':
      return errors.parseFailed(path, `expected at most ${String(params.limit)} characters, got ${String(valueAt(value, segments)).length}`);
    default:
      return errors.parseFailed(path, error.message ?? 'invalid value');
  }
}

function valueAt(value: unknown, segments: readonly (string | number)[]): unknown {
  return segments.reduce<unknown>((current, segment) => (current as Record<string | number, unknown> | undefined)?.[segment], value);
}

function describeType(type: string): string {
  return type
    .split(',')
    .map((name) => ({ object: 'Object', array: 'Array', string: 'String', integer: 'Integer', number: 'Number', boolean: 'Boolean', null: 'Null' })[name] ?? name)
    .join(' or ');
}

function describeValue(value: unknown): string {
  if (value === null) return 'Null';
  if (Array.isArray(value)) return 'Array';
  return { object: 'Object', string: 'String', number: 'Number', boolean: 'Boolean' }[typeof value as string] ?? typeof value;
}
