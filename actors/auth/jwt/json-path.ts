/**
 * The JSON paths of the JWT config (`claims_namespace_path`, `claims_map` paths): `$`
 * for the root, then `.key`, `['key']` / `["key"]` and `[0]`, as Hasura's
 * `parseJSONPath` reads them. The leading `$` may be left out, as Hasura allows.
 */
export type JsonPathSegment = string | number;

export interface JsonPath {
  readonly text: string;
  readonly segments: readonly JsonPathSegment[];
}

export class JsonPathSyntaxError extends Error {
  override readonly name = 'JsonPathSyntaxError';
}

const KEY_CHAR = /[^.[\]'"\s]/;

export function parseJsonPath(text: string): JsonPath {
  const segments: JsonPathSegment[] = [];
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonPathSyntaxError(`${what} at position ${i} of ${JSON.stringify(text)}`);
  };
  if (text.startsWith('$')) i = 1;
  else if (text[0] !== '.' && text[0] !== '[') segments.push(readKey());
  while (i < text.length) {
    const char = text[i];
    if (char === '.') {
      i++;
      segments.push(readKey());
    } else if (char === '[') {
      i++;
      segments.push(readBracket());
    } else {
      fail(`unexpected ${JSON.stringify(char)}`);
    }
  }
  return { text, segments };

  function readKey(): string {
    const start = i;
    while (i < text.length && KEY_CHAR.test(text[i]!)) i++;
    if (i === start) fail('expected a key');
    return text.slice(start, i);
  }

  function readBracket(): JsonPathSegment {
    const quote = text[i];
    if (quote === "'" || quote === '"') {
      i++;
      let key = '';
      while (i < text.length && text[i] !== quote) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        key += text[i];
        i++;
      }
      if (text[i] !== quote) fail('unterminated string');
      i++;
      if (text[i] !== ']') fail('expected "]"');
      i++;
      return key;
    }
    const start = i;
    while (i < text.length && /[0-9]/.test(text[i]!)) i++;
    if (i === start) fail('expected an array index or a quoted key');
    const index = Number(text.slice(start, i));
    if (text[i] !== ']') fail('expected "]"');
    i++;
    return index;
  }
}

/** The value at `path` in `root`, or `undefined` when the path does not exist there. */
export function evaluateJsonPath(root: unknown, path: JsonPath): unknown {
  let current: unknown = root;
  for (const segment of path.segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return undefined;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}
