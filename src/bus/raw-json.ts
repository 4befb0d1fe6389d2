/**
 * JSON text built elsewhere, PostgreSQL's result of a data API operation, carried inside a
 * response value and spliced into its encoding unparsed (ARCHITECTURE decision 4): a
 * parse and re-serialisation would cost time and round `bigint` and `numeric` values
 * beyond 2^53, which JavaScript numbers cannot hold.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * Each RawJson becomes a placeholder string while the value is serialised, and then its
 * text. The placeholder starts with NUL, which no response string can hold: PostgreSQL's
 * text and jsonb, where every stored name and value comes from, refuse it.
 */
const PLACEHOLDER = /"\\u0000raw(\d+)"/g;

export function encodeJsonWithRaw(value: unknown): Uint8Array {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raws.push(item.text);
    return `\u0000raw${raws.length - 1}`;
  });
  if (raws.length === 0) return Buffer.from(text);
  return Buffer.from(text.replace(PLACEHOLDER, (_match, index: string) => raws[Number(index)]!));
}
