import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { ConfigError, type Config } from '../../../src/config/load.js';
import { OPTIONS } from '../../../src/config/options.js';
import { DEFAULT_CLAIMS_NAMESPACE } from '../../../src/config/report.js';
import { JsonPathSyntaxError, parseJsonPath, type JsonPath } from './json-path.js';

export const ALLOWED_ROLES_CLAIM = 'x-service-allowed-roles';
export const DEFAULT_ROLE_CLAIM = 'x-service-default-role';

const HMAC_ALGORITHMS = { HS256: 32, HS384: 48, HS512: 64 } as const;
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512'] as const;
export type HmacAlgorithm = keyof typeof HMAC_ALGORITHMS;
export type RsaAlgorithm = (typeof RSA_ALGORITHMS)[number];
export const JWK_SET_ALGORITHMS: readonly RsaAlgorithm[] = RSA_ALGORITHMS;

export type JwtKeySpec =
  | { kind: 'key'; algorithm: HmacAlgorithm | RsaAlgorithm; key: KeyObject }
  | { kind: 'jwk_url'; url: string };

export type ClaimsFormat = 'json' | 'stringified_json';

/** A `claims_map` entry: a literal, or a JSON path into the payload with an optional default. */
export type ClaimsMapValue<T> = { kind: 'literal'; value: T } | { kind: 'path'; path: JsonPath; default: T | undefined };

export interface ClaimsMap {
  allowedRoles: ClaimsMapValue<string[]>;
  defaultRole: ClaimsMapValue<string>;
  /** Other session variables, lower-case names. */
  others: ReadonlyMap<string, ClaimsMapValue<string>>;
}

export type ClaimsSource =
  | { kind: 'namespace'; namespace: string; format: ClaimsFormat }
  | { kind: 'namespace_path'; path: JsonPath; format: ClaimsFormat }
  | { kind: 'map'; map: ClaimsMap };

export type TokenHeader = { type: 'Authorization' } | { type: 'Cookie'; name: string };

/** The JWT config (interface 5.3, compat-facts 5.2), validated once at start-up. */
export interface JwtSettings {
  key: JwtKeySpec;
  claims: ClaimsSource;
  /** When set, the token's `aud` must contain one of these. */
  audience: readonly string[] | undefined;
  issuer: string | undefined;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. */
  allowedSkewSeconds: number;
  header: TokenHeader;
}

const KNOWN_KEYS = new Set(['type', 'key', 'jwk_url', 'claims_namespace', 'claims_namespace_path', 'claims_format', 'audience', 'issuer', 'claims_map', 'allowed_skew', 'header']);

/** Thrown by the parsers below; `problem` names the key at fault. */
function invalid(problem: string): never {
  const { env, flag } = OPTIONS.jwtSecret;
  throw new ConfigError(`invalid value for ${env} (${flag}): ${problem}`);
}

/**
 * Validates `config.jwtSecret` and returns the settings the verifier runs with, or
 * `undefined` without JWT. Throws `ConfigError` naming the key at fault, so `main` can
 * call it before anything starts; the auth actor calls it again in `start()`.
 */
export function validateJwtConfig(config: Config): JwtSettings | undefined {
  return config.jwtSecret === undefined ? undefined : parseJwtSettings(config.jwtSecret);
}

export function parseJwtSettings(raw: Record<string, unknown>): JwtSettings {
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) invalid(`unknown key ${JSON.stringify(key)}; expected one of ${[...KNOWN_KEYS].join(', ')}`);
  }
  return {
    key: parseKeySpec(raw),
    claims: parseClaimsSource(raw),
    audience: parseAudience(raw.audience),
    issuer: optionalString(raw, 'issuer'),
    allowedSkewSeconds: parseSkew(raw.allowed_skew),
    header: parseHeader(raw.header),
  };
}

function optionalString(raw: Record<string, unknown>, key: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') invalid(`${key}: expected a non-empty string`);
  return value;
}

function parseKeySpec(raw: Record<string, unknown>): JwtKeySpec {
  const key = optionalString(raw, 'key');
  const url = optionalString(raw, 'jwk_url');
  if (key !== undefined && url !== undefined) invalid('key, jwk_url both cannot be present');
  if (key === undefined && url === undefined) invalid('key and jwk_url both cannot be empty');
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return invalid(`jwk_url: ${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') invalid('jwk_url: expected an http or https URL');
    return { kind: 'jwk_url', url };
  }
  const type = raw.type;
  if (type === undefined) invalid('type: required with key (one of HS256, HS384, HS512, RS256, RS384, RS512)');
  if (typeof type !== 'string') invalid('type: expected a string');
  if (/^ES(256|384|512)K?$/.test(type)) invalid(`type: Key type: ${type} is not supported; EC public keys are unsupported, use RS256/RS384/RS512 or HS256/HS384/HS512`);
  if (type in HMAC_ALGORITHMS) return { kind: 'key', algorithm: type as HmacAlgorithm, key: hmacKey(type as HmacAlgorithm, key!) };
  if ((RSA_ALGORITHMS as readonly string[]).includes(type)) return { kind: 'key', algorithm: type as RsaAlgorithm, key: rsaKey(key!) };
  return invalid(`type: Invalid JWK: Key type: ${type} is not supported (one of HS256, HS384, HS512, RS256, RS384, RS512)`);
}

/** HMAC secrets must be at least as long as the hash (Hasura's `parseHmacKey`). */
function hmacKey(algorithm: HmacAlgorithm, key: string): KeyObject {
  const minimum = HMAC_ALGORITHMS[algorithm];
  if (key.length < minimum) invalid(`key: Key size too small; should be atleast ${minimum} characters for ${algorithm}`);
  return createSecretKey(Buffer.from(key, 'utf8'));
}

/**
 * An RSA public key from a PEM public key (SPKI or PKCS#1) or an X509 certificate.
 * Node reads all three synchronously, so the check can run before anything starts.
 * Private keys are refused: the engine must never hold the signing key.
 */
function rsaKey(pem: string): KeyObject {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) invalid('key: a private key was given; give only the public key or an X509 certificate');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    return invalid(`key: not a PEM public key or X509 certificate (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType === 'ec') invalid('key: EC public keys are not supported; give an RSA public key or certificate');
  if (key.asymmetricKeyType !== 'rsa') invalid(`key: ${key.asymmetricKeyType ?? 'this'} keys are not supported; give an RSA public key or certificate`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) invalid(`key: RSA keys must be at least 2048 bits long (this one has ${bits})`);
  return key;
}

function parseFormat(value: unknown): ClaimsFormat {
  if (value === undefined) return 'json';
  if (value !== 'json' && value !== 'stringified_json') invalid('claims_format: expected "json" or "stringified_json"');
  return value;
}

function parsePath(key: string, text: unknown): JsonPath {
  if (typeof text !== 'string') invalid(`${key}: expected a JSON path string`);
  try {
    return parseJsonPath(text);
  } catch (error) {
    if (error instanceof JsonPathSyntaxError) invalid(`${key}: invalid JSON path: ${error.message}`);
    throw error;
  }
}

function parseClaimsSource(raw: Record<string, unknown>): ClaimsSource {
  const format = parseFormat(raw.claims_format);
  const namespace = optionalString(raw, 'claims_namespace');
  if (namespace !== undefined && raw.claims_namespace_path !== undefined) invalid('claims_namespace and claims_namespace_path both cannot be set');
  const path = raw.claims_namespace_path === undefined ? undefined : parsePath('claims_namespace_path', raw.claims_namespace_path);
  // Hasura lets claims_map win over a namespace; the config API reports it that way too.
  if (raw.claims_map !== undefined) return { kind: 'map', map: parseClaimsMap(raw.claims_map) };
  if (path !== undefined) return { kind: 'namespace_path', path, format };
  return { kind: 'namespace', namespace: namespace ?? DEFAULT_CLAIMS_NAMESPACE, format };
}

function parseClaimsMap(value: unknown): ClaimsMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('claims_map: expected an object');
  const entries = new Map<string, unknown>();
  for (const [name, entry] of Object.entries(value)) {
    const lower = name.toLowerCase();
    if (!lower.startsWith('x-service-')) invalid(`claims_map.${name}: session variable names start with x-service-`);
    entries.set(lower, entry);
  }
  for (const required of [ALLOWED_ROLES_CLAIM, DEFAULT_ROLE_CLAIM]) {
    if (!entries.has(required)) invalid(`claims_map: ${required} is expected but not found`);
  }
  const others = new Map<string, ClaimsMapValue<string>>();
  for (const [name, entry] of entries) {
    if (name !== ALLOWED_ROLES_CLAIM && name !== DEFAULT_ROLE_CLAIM) others.set(name, parseMapValue(name, entry, isString, 'a string'));
  }
  return {
    allowedRoles: parseMapValue(ALLOWED_ROLES_CLAIM, entries.get(ALLOWED_ROLES_CLAIM), isStringList, 'a list of strings'),
    defaultRole: parseMapValue(DEFAULT_ROLE_CLAIM, entries.get(DEFAULT_ROLE_CLAIM), isString, 'a string'),
    others,
  };
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

function parseMapValue<T>(name: string, entry: unknown, accepts: (value: unknown) => value is T, expected: string): ClaimsMapValue<T> {
  if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
    const object = entry as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      if (key !== 'path' && key !== 'default') invalid(`claims_map.${name}: unknown key ${JSON.stringify(key)}; expected path and default`);
    }
    const path = parsePath(`claims_map.${name}.path`, object.path);
    if (object.default !== undefined && !accepts(object.default)) invalid(`claims_map.${name}.default: expected ${expected}`);
    return { kind: 'path', path, default: object.default as T | undefined };
  }
  if (!accepts(entry)) invalid(`claims_map.${name}: expected ${expected} or {"path": ..., "default": ...}`);
  return { kind: 'literal', value: entry };
}

function parseAudience(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '')) return value as string[];
  return invalid('audience: expected a string or a non-empty list of strings');
}

function parseSkew(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) invalid('allowed_skew: expected a number of seconds, 0 or more');
  return value;
}

function parseHeader(value: unknown): TokenHeader {
  if (value === undefined) return { type: 'Authorization' };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid('header: expected {"type": "Authorization"} or {"type": "Cookie", "name": ...}');
  const { type, name } = value as Record<string, unknown>;
  if (typeof type === 'string' && type.toLowerCase() === 'authorization') return { type: 'Authorization' };
  if (typeof type === 'string' && type.toLowerCase() === 'cookie') {
    if (typeof name !== 'string' || name === '') invalid('header.name: the cookie name is required with {"type": "Cookie"}');
    return { type: 'Cookie', name };
  }
  return invalid("header.type: expected 'type' is 'Authorization' or 'Cookie'");
}
