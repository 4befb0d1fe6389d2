/**
 * Bounds on how deeply a request may nest JSON. Every walk of a value in the engine
 * (JSON.stringify for the bus, Ajv, the SQL compiler's boolean expressions) recurses, and
 * at a few thousand levels V8 throws "Maximum call stack size exceeded" wherever that
 * happens to be; refusing at the entrance keeps every later walk shallow. 100 leaves room
 * for any real metadata (a permission filter sits ~8 levels down) and any real variables.
 */
export const MAX_JSON_DEPTH = 100;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether a JSON text nests objects and arrays deeper than `limit`, found by one pass over
 * its characters (brackets inside strings do not count) before anything parses it. The
 * text need not be valid JSON: the parser says what else is wrong with it.
 */
export function jsonTextTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) i = stringEnd(text, i);
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * Where the string opened at `open` ends (its closing quote; the text's end when it has
 * none). Found with indexOf rather than character by character: a request's GraphQL text is
 * one long string, and the loop cost ~21 µs for the 9.4 KB of a 100-row insert.
 */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // A quote after an odd run of backslashes is escaped; after an even one (\\") it closes.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/** Whether an already parsed value (a WebSocket frame's payload) nests deeper than `limit`; iterative, so any depth is safe to ask about. */
export function jsonValueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}
