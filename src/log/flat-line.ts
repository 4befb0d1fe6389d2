import { pino, type Level, type Logger } from 'pino';

const { chindingsSym, endSym, lsCacheSym, streamSym, timeSym } = pino.symbols;

/**
 * Writes a typed line whose fields are all strings, numbers, booleans or undefined, byte for
 * byte as pino would (level, time, the logger's bindings, `type`, the fields in order, the
 * message), with JSON.stringify in place of pino's serialiser. pino escapes every key and
 * string of a line character by character in JavaScript: for the line written per request
 * (http-log) and per webhook call (webhook-log) that cost about 10 µs, more than the rest
 * of logging together. Returns false, having written nothing, for a line it cannot write
 * so (a field holding an object, an array, a bigint, or named `type`): pino writes those.
 * `raw`, the JSON text of an object of more such fields, is written after `fields` as it is.
 */
export function writeFlatLine(log: Logger, level: Level, type: string, fields: Record<string, unknown>, message: string, raw?: string): boolean {
  for (const key in fields) {
    const kind = typeof fields[key];
    if ((kind !== 'string' && kind !== 'number' && kind !== 'boolean' && kind !== 'undefined') || key === 'type') return false;
  }
  // The parts of a line pino keeps on the logger, reached through pino.symbols (its public way to them).
  const parts = log as unknown as Record<symbol, unknown>;
  const levelPrefix = (parts[lsCacheSym] as Record<number, string>)[log.levels.values[level]!];
  const time = (parts[timeSym] as () => string)();
  const line = `${levelPrefix}${time}${parts[chindingsSym] as string},"type":${JSON.stringify(type)}${members(JSON.stringify(fields))}${raw === undefined ? '' : members(raw)},"msg":${JSON.stringify(message)}${parts[endSym] as string}`;
  (parts[streamSym] as { write(line: string): void }).write(line);
  return true;
}

/** An object's JSON text as members to append to a line: `,"a":1,"b":2`, or nothing for `{}`. */
function members(objectText: string): string {
  return objectText.length > 2 ? `,${objectText.slice(1, -1)}` : '';
}
