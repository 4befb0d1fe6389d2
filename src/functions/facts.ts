import type { QualifiedName } from '../metadata/types.js';
import { relationKey, type Catalog, type CatalogFunction } from '../pg/catalog.js';
import { EntryCount } from '../metadata/entry-count.js';

/**
 * What the rules need to know of the database about one function, read from the
 * catalog (`pg_proc`) the request sees: inside the request's transaction, so a function
 * created by an earlier run_sql of the same bulk is there.
 */
export interface FunctionFacts {
  /** The `pg_proc` rows with the function's schema and name: several when overloaded. */
  candidates: CatalogFunction[];
  /** Among the composite types the candidates return, those that are tables or views (`relationKey`s). */
  relations: string[];
  /** Among those, the tracked ones. */
  tracked: string[];
}

export function gatherFunctionFacts(catalog: Catalog, fn: QualifiedName, trackedKeys: ReadonlySet<string>): FunctionFacts {
  const candidates = catalog.functions.get(relationKey(fn.schema, fn.name)) ?? [];
  const returned = [...new Set(candidates.map((candidate) => relationKey(candidate.returnTypeSchema, candidate.returnType)))];
  const relations = returned.filter((key) => catalog.relations.has(key));
  return { candidates, relations, tracked: relations.filter((key) => trackedKeys.has(key)) };
}

/** The keys of the tracked tables of a metadata source. */
export function trackedKeysOf(tables: readonly { table: QualifiedName }[]): Set<string> {
  return new Set(tables.map((entry) => relationKey(entry.table.schema, entry.table.name)));
}

const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * The tracked tables' keys for judging a source's functions and computed fields; none when
 * it has neither, where making the set cost every metadata operation 2-3 ms at 5,000 tables.
 */
export function trackedKeysForFunctions(source: FunctionSource | undefined): ReadonlySet<string> {
  if (source === undefined) return NO_KEYS;
  return hasFunctionsOrComputedFields(source) ? trackedKeysOf(source.tables) : NO_KEYS;
}

type FunctionSource = { tables: readonly { table: QualifiedName; computed_fields?: readonly unknown[] }[]; functions?: readonly unknown[] };

/** The entries with computed fields, counted as they come and go. */
const computedFieldEntries = new EntryCount<FunctionSource['tables'][number]>((entry) => (entry.computed_fields?.length ?? 0) > 0);

/** Whether a metadata source tracks a function or has a computed field: without, there is nothing for the function rules to judge. */
export function hasFunctionsOrComputedFields(source: FunctionSource): boolean {
  return (source.functions?.length ?? 0) > 0 || computedFieldEntries.of(source.tables) > 0;
}
