import { createPublicKey } from 'node:crypto';
import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import { JWK_SET_ALGORITHMS } from '../jwt/config.js';

export interface ParsedKeySet {
  verify: JWTVerifyGetKey;
  /** Key ids (or `?` for keys without one) of the usable keys, for logs and the monitor. */
  kids: string[];
  /** How many keys were left out (EC, private, encryption-only, unreadable). */
  skipped: number;
  /** A stable text of the usable keys, to tell a rotation from a re-fetch of the same set. */
  fingerprint: string;
}

export class KeySetError extends Error {
  override readonly name = 'KeySetError';
}

/**
 * Reads a JWK set (RFC 7517) and keeps its RSA signing keys. EC public keys are not
 * supported (interface 5.3), so they are left out; a set with no usable key is an error.
 */
export function parseKeySet(body: unknown): ParsedKeySet {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { keys?: unknown }).keys)) {
    throw new KeySetError('expected a JWK set: an object with a "keys" array');
  }
  const usable: JWK[] = [];
  let skipped = 0;
  for (const candidate of (body as { keys: unknown[] }).keys) {
    const jwk = candidate as JWK;
    const isRsaSigningKey = typeof jwk === 'object' && jwk !== null && jwk.kty === 'RSA' && jwk.use !== 'enc' && jwk.d === undefined;
    if (!isRsaSigningKey || (jwk.alg !== undefined && !(JWK_SET_ALGORITHMS as readonly string[]).includes(jwk.alg))) {
      skipped++;
      continue;
    }
    try {
      const key = createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
      if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new Error('shorter than 2048 bits');
    } catch {
      skipped++;
      continue;
    }
    usable.push({ kty: jwk.kty, n: jwk.n, e: jwk.e, ...(jwk.kid === undefined ? {} : { kid: jwk.kid }), ...(jwk.alg === undefined ? {} : { alg: jwk.alg }) });
  }
  if (usable.length === 0) {
    throw new KeySetError(`the JWK set has no usable RSA signing key${skipped > 0 ? ` (${skipped} left out; EC keys are not supported)` : ''}`);
  }
  return {
    verify: createLocalJWKSet({ keys: usable }),
    kids: usable.map((jwk) => jwk.kid ?? '?'),
    skipped,
    fingerprint: JSON.stringify(usable),
  };
}
