import type { Pool } from '../../../src/pg/pool.js';

/**
 * Turns pgoutput's text values into the JSON PostgreSQL's `to_json` would write, the
 * form Hasura's `row_to_json(NEW)` puts in event payloads (compat-facts 4.1): numbers as
 * numbers (their digits kept as sent, so int8 and numeric lose no precision), booleans,
 * json as it is, timestamps in ISO 8601 with a `T`, arrays as JSON arrays, the rest as strings.
 */
interface TypeInfo {
  /** pg_type.typcategory of the type, or of a domain's base type. */
  category: string;
  /** The oid whose text form is converted: the type, or a domain's base type. */
  base: number;
  /** Element type of an array type; 0 otherwise. */
  element: number;
}

const OID = { bool: 16, json: 114, jsonb: 3802, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;

export class ValueConverter {
  #types = new Map<number, TypeInfo>();

  /** Reads every type's category once; new types created later fall back to strings until the next load. */
  async load(pool: Pool): Promise<void> {
    const result = await pool.query<{ oid: number; category: string; element: number; base: number; basecategory: string | null }>(
      `select t.oid::int as oid, t.typcategory as category, t.typelem::int as element,
              coalesce(nullif(t.typbasetype, 0), t.oid)::int as base, b.typcategory as basecategory
         from pg_type t left join pg_type b on b.oid = t.typbasetype`,
    );
    this.#types = new Map(result.rows.map((row) => [row.oid, { category: row.basecategory ?? row.category, base: row.base, element: row.element }]));
  }

  /** The JSON text of `text`, the value of a column of type `oid` as pgoutput sent it. */
  toJson(oid: number, text: string | null | undefined): string {
    if (text === null || text === undefined) return 'null';
    const info = this.#types.get(oid);
    if (info === undefined) return JSON.stringify(text);
    if (info.base === OID.json || info.base === OID.jsonb) return text;
    switch (info.category) {
      case 'N':
        // to_json writes NaN and infinities as strings: they are not JSON numbers.
        return /^-?[0-9]/.test(text) && !/inf/i.test(text) ? text : JSON.stringify(text);
      case 'B':
        return info.base === OID.bool ? (text === 't' ? 'true' : 'false') : JSON.stringify(text);
      case 'D':
        return JSON.stringify(isoDateTime(info.base, text));
      case 'A':
        return arrayToJson(parseArrayLiteral(text), (element) => this.toJson(info.element, element));
      default:
        return JSON.stringify(text);
    }
  }
}

/** `2024-03-05 10:21:43.5+00` (DateStyle ISO) -> `2024-03-05T10:21:43.5+00:00`, as to_json writes it. */
function isoDateTime(oid: number, text: string): string {
  if (oid !== OID.timestamp && oid !== OID.timestamptz) return text;
  if (!/^\d{4,}-\d\d-\d\d /.test(text)) return text;
  const withT = text.replace(' ', 'T');
  return oid === OID.timestamptz ? withT.replace(/([+-]\d\d)$/, '$1:00') : withT;
}

type ArrayItem = string | null | ArrayItem[];

function arrayToJson(items: ArrayItem[], element: (text: string | null) => string): string {
  return `[${items.map((item) => (Array.isArray(item) ? arrayToJson(item, element) : element(item))).join(',')}]`;
}

/** Parses an array's text form (`{1,NULL,"a b",{2,3}}`, optionally `[0:1]={...}`). */
function parseArrayLiteral(text: string): ArrayItem[] {
  let position = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const parseLevel = (): ArrayItem[] => {
    const items: ArrayItem[] = [];
    position++; // '{'
    while (position < text.length) {
      const char = text[position];
      if (char === '}') {
        position++;
        return items;
      }
      if (char === ',') {
        position++;
        continue;
      }
      if (char === '{') {
        items.push(parseLevel());
        continue;
      }
      if (char === '"') {
        let value = '';
        position++;
        while (position < text.length && text[position] !== '"') {
          if (text[position] === '\\') position++;
          value += text[position];
          position++;
        }
        position++;
        items.push(value);
        continue;
      }
      let end = position;
      while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
      const raw = text.slice(position, end).trim();
      items.push(raw === 'NULL' ? null : raw);
      position = end;
    }
    return items;
  };
  return text[position] === '{' ? parseLevel() : [];
}
