import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented admin secret with the configured one in constant time. Both are
 * hashed first so that neither the content nor the length of the secret leaks through
 * how long the comparison takes.
 */
export function secretMatches(presented: string, configured: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(configured).digest();
  return timingSafeEqual(a, b);
}

/** The admin secret a request presents, from the current or the deprecated header. */
export function presentedSecret(headers: Record<string, string>): string | undefined {
  return headers['x-service-admin-secret'] ?? headers['x-service-access-key'];
}
