import type { KeyObject } from 'node:crypto';
import type { JWTVerifyGetKey } from 'jose';
import { invariant } from '../../../src/errors/service-error.js';
import type { JwtKeySpec } from './config.js';

/**
 * Where the verifier gets its key: a fixed key from the config, or the JWK set the
 * refresher keeps current. `version` changes whenever the keys do, so that tokens
 * verified with keys that were rotated out leave the token cache.
 */
export interface JwtKeySource {
  readonly version: number;
  readonly algorithms: readonly string[];
  current(): KeyObject | JWTVerifyGetKey;
}

/** The key of a `type` + `key` config; only its own algorithm is accepted. */
export function staticKeySource(spec: JwtKeySpec): JwtKeySource {
  invariant(spec.kind === 'key', 'a jwk_url config gets its keys from the JwkRefresher');
  const { key, algorithm } = spec;
  return { version: 0, algorithms: [algorithm], current: () => key };
}
