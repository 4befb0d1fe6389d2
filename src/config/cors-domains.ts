/**
 * One entry of SERVICE_GRAPHQL_CORS_DOMAIN: a scheme, a host that may start with `*.`
 * (one subdomain label, as Hasura's Cors.hs reads it: `https://*.foo.com` takes
 * `https://a.foo.com` but neither `https://foo.com` nor `https://a.b.foo.com`) and a port
 * that may be `*` (any port, or none: an extension of ours, since Hasura reads
 * `http://localhost:*` as `http://localhost`).
 */
export interface OriginPattern {
  scheme: string;
  /** Lower-cased; without the `*.` of a wildcard. */
  host: string;
  subdomainWildcard: boolean;
  /** `undefined`: the origin names no port; `'*'`: any port or none. */
  port: number | '*' | undefined;
}

/** `*` (every origin) or the listed patterns. */
export type CorsDomains = '*' | OriginPattern[];

const PATTERN = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(\*\.)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?::([0-9]{1,5}|\*))?$/;

/**
 * Reads the comma-separated list, finding a problem where Hasura would (an entry without
 * a scheme, a path) and in a `*` among other entries. The option's parser turns a
 * problem into its ConfigValueError.
 */
export function readCorsDomains(raw: string): { domains: CorsDomains } | { problem: string } {
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '*') return { domains: '*' };
  const patterns: OriginPattern[] = [];
  for (const entry of entries) {
    if (entry === '*') return { problem: '"*" allows every origin and must stand alone' };
    const match = PATTERN.exec(entry);
    if (match === null) return { problem: `invalid domain: ${JSON.stringify(entry)}; each needs a scheme, a host (optionally starting with "*.") and optionally a port or ":*", e.g. https://*.example.com,http://localhost:*` };
    const port = match[4] === undefined ? undefined : match[4] === '*' ? '*' : Number(match[4]);
    if (typeof port === 'number' && port > 65535) return { problem: `invalid port in ${JSON.stringify(entry)}` };
    patterns.push({ scheme: match[1]!.toLowerCase(), host: match[3]!.toLowerCase(), subdomainWildcard: match[2] !== undefined, port });
  }
  return { domains: patterns };
}

const ORIGIN = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/:?#]+)(?::([0-9]{1,5}))?$/;

/** Whether the `Origin` header's value is one the patterns allow. */
export function originAllowed(domains: CorsDomains, origin: string): boolean {
  if (domains === '*') return true;
  const match = ORIGIN.exec(origin);
  if (match === null) return false;
  const scheme = match[1]!.toLowerCase();
  const host = match[2]!.toLowerCase();
  const port = match[3] === undefined ? undefined : Number(match[3]);
  return domains.some((pattern) => {
    if (pattern.scheme !== scheme) return false;
    if (pattern.port !== '*' && pattern.port !== port) return false;
    if (!pattern.subdomainWildcard) return host === pattern.host;
    const dot = host.indexOf('.');
    return dot > 0 && host.slice(dot + 1) === pattern.host;
  });
}
