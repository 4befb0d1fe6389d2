import { createRequire } from 'node:module';

/**
 * pg's own conversion of a bound value to the text PostgreSQL reads (arrays as array
 * literals, dates as ISO text, objects as JSON), for values that travel inside a JSON
 * document and are cast by the statement instead of bound (a subscription's cohort).
 */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

export function postgresText(value: unknown): string | null {
  const text = prepareValue(value);
  return text === null || text === undefined ? null : String(text);
}
