import { errors as jose, jwtVerify, type JWTPayload } from 'jose';
import { errors } from '../../../src/errors/errors.js';
import type { ServiceError } from '../../../src/errors/service-error.js';
import type { JwtSettings } from './config.js';
import type { JwtKeySource } from './keys.js';

export type VerifyChecks = Pick<JwtSettings, 'audience' | 'issuer' | 'allowedSkewSeconds'>;

/**
 * The reason Hasura prints after `Could not verify JWT: ` (the `show` of the Haskell
 * jose error, compat-facts 5.3) for what jose (JS) reports.
 */
function reasonOf(error: unknown): string {
  if (error instanceof jose.JWTExpired) return 'JWTExpired';
  if (error instanceof jose.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return 'JWTNotInAudience';
      case 'iss':
        return 'JWTNotInIssuer';
      case 'nbf':
        return 'JWTNotYetValid';
      default:
        return `JWTClaimsSetDecodeError ${JSON.stringify(error.message)}`;
    }
  }
  if (error instanceof jose.JWSSignatureVerificationFailed) return 'JWSError JWSInvalidSignature';
  // An algorithm the config does not allow (`none`, HS* against an RSA key, ...) or no
  // key of the set for the token: no signature could be checked with a trusted key.
  if (error instanceof jose.JOSEAlgNotAllowed || error instanceof jose.JWKSNoMatchingKey || error instanceof jose.JOSENotSupported) {
    return 'JWSError JWSNoValidSignatures';
  }
  if (error instanceof jose.JWSInvalid) return `JWSError (CompactDecodeError ${JSON.stringify(error.message)})`;
  if (error instanceof jose.JWTInvalid) return `JWTClaimsSetDecodeError ${JSON.stringify(error.message)}`;
  return `JWSError (${error instanceof Error ? error.message : String(error)})`;
}

export function invalidJwt(error: unknown): ServiceError {
  return errors.jwtInvalid('$', reasonOf(error));
}

/**
 * Verifies a compact JWT: signature with the current key(s) and only the allowed
 * algorithms, then `exp`, `nbf`, `iat`, `aud` and `iss` with `allowed_skew` of leeway.
 * Throws `invalid-jwt`. This is the function the auth benchmark measures.
 */
export async function verifyJwt(token: string, keys: JwtKeySource, checks: VerifyChecks): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    const key = keys.current();
    const options = {
      algorithms: [...keys.algorithms],
      clockTolerance: checks.allowedSkewSeconds,
      ...(checks.audience === undefined ? {} : { audience: [...checks.audience] }),
      ...(checks.issuer === undefined ? {} : { issuer: checks.issuer }),
    };
    ({ payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
  } catch (error) {
    throw invalidJwt(error);
  }
  // Haskell jose (Hasura) also refuses a token issued in the future; jose (JS) does not.
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + checks.allowedSkewSeconds) {
    throw errors.jwtInvalid('$', 'JWTIssuedAtFuture');
  }
  return payload;
}
