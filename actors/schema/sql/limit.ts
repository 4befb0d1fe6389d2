import { errors } from '../../../src/errors/errors.js';
import type { Input, InputReader } from './input.js';

/**
 * LIMIT, OFFSET and the like are written into the statement as literals (ARCHITECTURE
 * decision 5): PostgreSQL plans a small limit as small. Only a non-negative integer ever
 * reaches the text; the value shapes the plan, so a variable holding it is part of the
 * plan's key (InputReader.integer).
 */
export function rowCount(reader: InputReader, input: Input): number {
  const value = reader.integer(input);
  if (value < 0) throw errors.negativeValue(input.path);
  return value;
}

/** The smaller of a requested count and the permission's cap, either possibly absent. */
export function cappedCount(requested: number | null, cap: number | null): number | null {
  if (requested === null) return cap;
  return cap === null ? requested : Math.min(requested, cap);
}
