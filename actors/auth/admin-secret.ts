import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented admin secret with the configured one in constant time. Both are
 * hashed first so that neither the content nor the length of the secret leaks through
 * how long the comparison takes.
 */
export function secretMatches(presented: string, configured: string): boolean {
  return secretMatcher(configured)(presented);
}

/** secretMatches against one configured secret, whose hash is taken once rather than per request. */
export function secretMatcher(configured: string): (presented: string) => boolean {
  const expected = sha256(configured);
  return (presented) => timingSafeEqual(sha256(presented), expected);
}

/** The one-shot hash: a Hash object (createHash) per request cost more than the hashing. */
function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** The admin secret a request presents, from the current or the deprecated header. */
export function presentedSecret(headers: Record<string, string>): string | undefined {
  return headers['x-service-admin-secret'] ?? headers['x-service-access-key'];
}
