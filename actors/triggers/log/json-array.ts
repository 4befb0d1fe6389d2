const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/** The bytes a JSON array of items of these sizes takes: the brackets and a comma after all but the last. */
export function jsonArrayBytes(itemBytes: number, count: number): number {
  return itemBytes + count + 1;
}

/** The JSON array of items that are JSON already, joined as bytes in one buffer from Node's pool: never decoded. */
export function jsonArrayOf(items: readonly Uint8Array[]): Buffer {
  const body = Buffer.allocUnsafe(jsonArrayBytes(items.reduce((sum, item) => sum + item.length, 0), items.length));
  let offset = 0;
  for (const [index, item] of items.entries()) {
    body[offset] = index === 0 ? OPEN_BRACKET : COMMA;
    body.set(item, offset + 1);
    offset += item.length + 1;
  }
  body[offset] = CLOSE_BRACKET;
  return body;
}
