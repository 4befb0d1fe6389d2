/**
 * The `path` argument of json and jsonb columns (Hasura's "JSON select path"): `$.a.b[0]`,
 * `a.b`, `$["a key"][2]`. Its elements become one text[] parameter of `#>`, so a path
 * never enters the SQL text. An empty path (`$`) selects the whole value.
 */
export function parseJsonPath(text: string): string[] | { error: string } {
  const elements: string[] = [];
  let at = text.startsWith('$') ? 1 : 0;
  const fail = (what: string) => ({ error: `parse json path error: ${what} at position ${at} of ${JSON.stringify(text)}` });
  if (at === 0 && text.length > 0 && text[0] !== '[') {
    const key = keyAt(text, at);
    if (key === '') return fail('expected a key');
    elements.push(key);
    at += key.length;
  }
  while (at < text.length) {
    if (text[at] === '.') {
      const key = keyAt(text, at + 1);
      if (key === '') return fail('expected a key after "."');
      elements.push(key);
      at += 1 + key.length;
    } else if (text[at] === '[') {
      const close = text.indexOf(']', at);
      if (close === -1) return fail('unclosed "["');
      const inside = text.slice(at + 1, close);
      const quoted = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(inside);
      if (/^[0-9]+$/.test(inside)) elements.push(inside);
      else if (quoted?.[2] !== undefined) elements.push(quoted[2]);
      else if (quoted?.[1] !== undefined) {
        const key = unescapeKey(quoted[1]);
        if (key === null) return fail('invalid escape in a quoted key');
        elements.push(key);
      } else return fail('expected an index or a quoted key inside "[]"');
      at = close + 1;
    } else {
      return fail('expected "." or "["');
    }
  }
  return elements;
}

function keyAt(text: string, from: number): string {
  let end = from;
  while (end < text.length && text[end] !== '.' && text[end] !== '[') end++;
  return text.slice(from, end);
}

/** A double-quoted key's escapes read as JSON's; null for one JSON refuses (`\u12`). */
function unescapeKey(escaped: string): string | null {
  try {
    return JSON.parse(`"${escaped}"`) as string;
  } catch {
    return null;
  }
}
