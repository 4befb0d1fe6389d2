/**
 * When to fetch the JWK set again (interface 5.4): the `max-age` or `s-maxage` of
 * `Cache-Control` (the first of them, as Hasura's `parseMaxAge` takes it), or, only when
 * `Cache-Control` is absent, an `Expires` that parses as an HTTP date. A present
 * `Cache-Control` without either directive is not usable, as in Hasura.
 */
export type RefreshAfter = { usable: true; delayMs: number } | { usable: false; reason: string };

type HeaderValue = string | string[] | undefined;

function single(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

export function maxAgeSeconds(cacheControl: string): number | undefined {
  for (const directive of cacheControl.split(',')) {
    const match = /^\s*(max-age|s-maxage)\s*=\s*"?(\d+)"?\s*$/i.exec(directive);
    if (match !== null) return Number(match[2]);
    if (/^\s*(max-age|s-maxage)\s*(=|$)/i.test(directive)) return undefined;
  }
  return undefined;
}

/** IMF-fixdate, RFC 850 and asctime dates (RFC 9110 5.6.7); anything else (`0`, `-1`) is no date. */
const HTTP_DATE = [
  /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

export function parseHttpDate(text: string): number | undefined {
  const trimmed = text.trim();
  if (!HTTP_DATE.some((format) => format.test(trimmed))) return undefined;
  const time = Date.parse(HTTP_DATE[2]!.test(trimmed) ? `${trimmed} GMT` : trimmed);
  return Number.isNaN(time) ? undefined : time;
}

export function refreshAfter(headers: Record<string, HeaderValue>, now: number): RefreshAfter {
  const cacheControl = single(headers['cache-control']);
  if (cacheControl !== undefined) {
    const seconds = maxAgeSeconds(cacheControl);
    if (seconds === undefined) return { usable: false, reason: 'Cache-Control has no max-age or s-maxage' };
    return { usable: true, delayMs: seconds * 1000 };
  }
  const expires = single(headers.expires);
  if (expires === undefined) return { usable: false, reason: 'neither Cache-Control nor Expires was sent' };
  const at = parseHttpDate(expires);
  if (at === undefined) return { usable: false, reason: 'Expires is not a valid timestamp' };
  return { usable: true, delayMs: Math.max(0, at - now) };
}
