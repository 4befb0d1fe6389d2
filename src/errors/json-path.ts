/**
 * JSON paths in Hasura's notation (compat-facts 1.1): `$`, `.key` for ordinary keys,
 * `[0]` for indexes, and `['key']` for keys that do not start with a letter or `_` or
 * that contain anything but alphanumerics, `_` and `-`.
 */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export type PathSegment = string | number;

export function appendPath(path: string, segment: PathSegment): string {
  if (typeof segment === 'number') return `${path}[${segment}]`;
  if (PLAIN_KEY.test(segment)) return `${path}.${segment}`;
  return `${path}['${segment.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

export function formatPath(segments: readonly PathSegment[], root = '$'): string {
  return segments.reduce<string>(appendPath, root);
}

/** Converts a JSON Pointer (RFC 6901, as Ajv reports `instancePath`) into segments. */
export function pointerSegments(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((key) => (/^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key));
}
