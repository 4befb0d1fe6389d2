import { errors } from '../../../src/errors/errors.js';
import type { TokenHeader } from './config.js';

function cookieValue(cookieHeader: string, name: string): string | undefined {
  for (const pair of cookieHeader.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/**
 * The raw token of a request, or `undefined` when the configured header is absent (the
 * unauthorized role may then apply). `Authorization` must be exactly `Bearer <token>`
 * (Hasura splits on whitespace and wants two words); a Cookie header must hold the
 * configured cookie.
 */
export function tokenFromHeaders(headers: Record<string, string>, header: TokenHeader): string | undefined {
  if (header.type === 'Cookie') {
    const cookies = headers.cookie;
    if (cookies === undefined) return undefined;
    const token = cookieValue(cookies, header.name);
    if (token === undefined || token === '') throw errors.jwtMissingCookie('$', header.name);
    return token;
  }
  const authorization = headers.authorization;
  if (authorization === undefined) return undefined;
  const words = authorization.trim().split(/\s+/);
  if (words.length !== 2 || words[0]!.toLowerCase() !== 'bearer') throw errors.jwtMalformedHeader('$');
  return words[1]!;
}
