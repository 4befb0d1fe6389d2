import { errors } from '../../src/errors/errors.js';
import type { RemoteSchemaEntry } from '../../src/metadata/types.js';
import { readCustomization } from './customization/names.js';

/** A remote schema's definition as stored in metadata (interface 2.2, compat-facts 7.1). */
export type RemoteDefinition = RemoteSchemaEntry['definition'];

/** A definition with its environment variables read: what a call to the server needs. */
export interface ResolvedRemote {
  url: string;
  /** Configured headers, in order, values resolved. */
  headers: [string, string][];
  forwardClientHeaders: boolean;
  timeoutMs: number;
}

/** compat-facts 7.1: `timeout_seconds` defaults to 60. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

function envValue(name: string, path: string, env: NodeJS.ProcessEnv): string {
  const value = env[name];
  if (value === undefined) throw errors.invalidParams(path, `environment variable '${name}' not set`);
  return value;
}

/** `url` may hold `{{ENV}}` templates (compat-facts 7.1). */
function expandTemplates(url: string, path: string, env: NodeJS.ProcessEnv): string {
  return url.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_match, name: string) => envValue(name, path, env));
}

function checkUrl(url: string, path: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw errors.invalidParams(path, `not a valid URI: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw errors.invalidParams(path, `not a valid URI: ${url}`);
  return url;
}

/**
 * Reads a definition's URL and headers, from the environment where it says so, with
 * Hasura's errors (compat-facts 7.2). `path` is the JSON path of the definition.
 */
export function resolveDefinition(definition: RemoteDefinition, path: string, env: NodeJS.ProcessEnv = process.env): ResolvedRemote {
  if (definition.url === undefined && definition.url_from_env === undefined) throw errors.invalidParams(path, 'both `url` and `url_from_env` can\'t be empty');
  if (definition.url !== undefined && definition.url_from_env !== undefined) throw errors.invalidParams(path, 'both `url` and `url_from_env` can\'t be present');
  const url =
    definition.url !== undefined
      ? checkUrl(expandTemplates(definition.url, `${path}.url`, env), `${path}.url`)
      : checkUrl(envValue(definition.url_from_env!, `${path}.url_from_env`, env), `${path}.url_from_env`);
  const headers = (definition.headers ?? []).map((header, index): [string, string] => {
    const headerPath = `${path}.headers[${index}]`;
    if (header.value !== undefined) return [header.name, header.value];
    if (header.value_from_env !== undefined) return [header.name, envValue(header.value_from_env, `${headerPath}.value_from_env`, env)];
    throw errors.invalidParams(headerPath, 'expecting a value or value_from_env for the header');
  });
  return {
    url,
    headers,
    forwardClientHeaders: definition.forward_client_headers === true,
    timeoutMs: (definition.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  };
}

/** A customization must have the documented shape and leave `__` names alone (compat-facts 7.2); it is applied when served. */
export function checkCustomization(definition: RemoteDefinition, path: string): void {
  readCustomization(definition.customization, `${path}.customization`);
}
