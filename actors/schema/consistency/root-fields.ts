import { sameFunction, sameTable } from '../../../src/metadata/edit.js';
import type { Metadata, QualifiedName, TableConfiguration, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { trackedFunctionModels, type FunctionModel } from '../models/function-model.js';
import { rootFieldsOf, tableTypeName } from '../models/table-model.js';
import { TableMemo } from '../models/table-memo.js';
import { changedSpan } from '../../../src/metadata/changed-span.js';
import { tablePositions } from '../../../src/metadata/table-order.js';

/** A root field name, with the root it lives in: a query and a mutation field may share a name. */
type RootName = `${'query' | 'mutation'}.${string}`;

/**
 * The custom root field names a table configuration gives twice, in Hasura's message
 * (`the following custom root field names are duplicated: a and b`), or null.
 */
export function duplicatedCustomRootFields(configuration: TableConfiguration | undefined): string | null {
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  for (const value of Object.values(configuration?.custom_root_fields ?? {})) {
    const name = typeof value === 'string' ? value : value?.name;
    if (name === undefined) continue;
    if (seen.has(name)) duplicated.add(name);
    seen.add(name);
  }
  if (duplicated.size === 0) return null;
  return `the following custom root field names are duplicated: ${englishList([...duplicated])}`;
}

/** A tracked table or function of the metadata, by its qualified name. */
export type NameOwner = { table: QualifiedName } | { function: QualifiedName };

/**
 * The first name `owner` answers to (a table's type and root fields, a function's root
 * fields) that another tracked table or function already uses: two objects answering to
 * one name would leave one of them unreachable.
 */
export function nameTaken(metadata: Metadata, catalog: Catalog, owner: NameOwner): string | null {
  const tables = metadata.sources[0]?.tables ?? [];
  const functions = [...trackedFunctionModels(metadata, catalog).values()];
  const functionNames = (fn: FunctionModel) => [`${fn.exposedAs}.${fn.fieldName}`, `${fn.exposedAs}.${fn.aggregateFieldName}`];
  const ownsTable = (entry: TableEntry) => 'table' in owner && sameTable(entry.table, owner.table);
  const own: string[] = [];
  if ('table' in owner) for (const index of tablePositions(tables, owner.table)) own.push(...tableNamesOf(tables[index]!, catalog));
  for (const fn of functions) if ('function' in owner && sameFunction(fn.function, owner.function)) own.push(...functionNames(fn));
  // The owner's few names against every other object's: the tables' from the kept index of them.
  const index = everyTableNames.update(tables, catalog);
  const taken = new Set<string>();
  for (const name of own) if ((index.claimants.get(name) ?? []).some((entry) => !ownsTable(entry))) taken.add(name);
  const wanted = new Set(own);
  for (const fn of functions) {
    if ('function' in owner && sameFunction(fn.function, owner.function)) continue;
    for (const name of functionNames(fn)) if (wanted.has(name)) taken.add(name);
  }
  const name = own.find((candidate) => taken.has(candidate));
  return name === undefined ? null : name.slice(name.indexOf('.') + 1);
}

/**
 * Which tables claim each name, kept from one use to the next and updated by the tables
 * that came or went: an operation changes a table or two, while a run over every name of
 * thousands of tables was tens of milliseconds on every operation. Names only one table
 * claims cannot clash, so the claiming order matters only among the tables that claim one
 * of the few contested names.
 */
class NameIndex {
  /** The catalog the names were worked out with; null while an update is under way, so that one that failed half way starts over. */
  #relations: Catalog['relations'] | null = null;
  /** The entries the index holds the names of, as last given. */
  #entries: readonly TableEntry[] = [];
  readonly names = new Map<TableEntry, readonly string[]>();
  readonly claimants = new Map<string, TableEntry[]>();
  /** Names claimed more than once (by two tables, or twice by one). */
  readonly contested = new Set<string>();

  update(entries: readonly TableEntry[], catalog: Catalog): this {
    // A new catalog may change any table's names (a primary key gives `_by_pk` fields).
    if (this.#relations !== catalog.relations) {
      this.#entries = [];
      this.names.clear();
      this.claimants.clear();
      this.contested.clear();
    }
    this.#relations = null;
    // Only the span the edit changed can hold entries that came or went (changed-span.ts).
    const span = changedSpan(this.#entries, entries);
    const present = new Set(entries.slice(span.start, span.afterEnd));
    for (const entry of this.#entries.slice(span.start, span.beforeEnd)) {
      if (!present.has(entry)) this.#forget(entry);
    }
    for (const entry of present) if (!this.names.has(entry)) this.#learn(entry, catalog);
    this.#entries = entries;
    this.#relations = catalog.relations;
    return this;
  }

  #forget(entry: TableEntry): void {
    const names = this.names.get(entry);
    if (names === undefined) return;
    this.names.delete(entry);
    for (const name of names) {
      const claimants = this.claimants.get(name)!;
      claimants.splice(claimants.indexOf(entry), 1);
      if (claimants.length === 0) this.claimants.delete(name);
      if (claimants.length < 2) this.contested.delete(name);
    }
  }

  #learn(entry: TableEntry, catalog: Catalog): void {
    const names = tableNamesOf(entry, catalog);
    this.names.set(entry, names);
    for (const name of names) {
      const claimants = this.claimants.get(name);
      if (claimants === undefined) this.claimants.set(name, [entry]);
      else {
        claimants.push(entry);
        this.contested.add(name);
      }
    }
  }
}

/** The names of the tables the consistency check serves (laterNameClaims). */
const servedTableNames = new NameIndex();
/** The names of every table of the metadata an operation is about to commit (nameTaken). */
const everyTableNames = new NameIndex();

/**
 * The tables whose type or root field name another table already claims (or that repeat a
 * name of their own), each with the name and the table that holds it; they are left out,
 * so a clash in replaced or reloaded metadata leaves every name answering for one table.
 * Tables that customize no names claim first: a table keeps its own name against another's
 * custom one.
 */
export function laterNameClaims(entries: readonly TableEntry[], catalog: Catalog): Map<TableEntry, { name: string; holder: QualifiedName }> {
  const index = servedTableNames.update(entries, catalog);
  const clashes = new Map<TableEntry, { name: string; holder: QualifiedName }>();
  if (index.contested.size === 0) return clashes;
  const contending = new Set<TableEntry>();
  for (const name of index.contested) for (const entry of index.claimants.get(name)!) contending.add(entry);
  const customizes = (entry: TableEntry) => entry.configuration?.custom_name !== undefined || Object.keys(entry.configuration?.custom_root_fields ?? {}).length > 0;
  const inOrder = entries.filter((entry) => contending.has(entry));
  const claimed = new Map<string, QualifiedName>();
  for (const entry of [...inOrder.filter((entry) => !customizes(entry)), ...inOrder.filter(customizes)]) {
    const names = index.names.get(entry)!.filter((name) => index.contested.has(name));
    const own = new Set<string>();
    let taken: string | undefined;
    for (const name of names) {
      if (claimed.has(name) || own.has(name)) {
        taken = name;
        break;
      }
      own.add(name);
    }
    if (taken !== undefined) {
      clashes.set(entry, { name: taken.slice(taken.indexOf('.') + 1), holder: claimed.get(taken) ?? entry.table });
      continue;
    }
    for (const name of names) claimed.set(name, entry.table);
  }
  return clashes;
}

/** Every name a table answers to, computed once per entry and catalog: each check of a name goes through all tables. */
const tableNames = new TableMemo<readonly string[]>();

export function tableNamesOf(entry: TableEntry, catalog: Catalog): readonly string[] {
  return tableNames.get(entry, catalog.relations, () => [`type.${tableTypeName(entry)}`, ...tableRootNames(entry, catalog)]);
}

/** The root fields a table gives the admin schema (the by-primary-key ones only with a primary key). */
function tableRootNames(entry: TableEntry, catalog: Catalog): RootName[] {
  const roots = rootFieldsOf(entry.configuration ?? {}, tableTypeName(entry));
  const hasKey = (catalog.relations.get(relationKey(entry.table.schema, entry.table.name))?.primaryKey.length ?? 0) > 0;
  const names: RootName[] = [`query.${roots.select}`, `query.${roots.selectAggregate}`, `mutation.${roots.insert}`, `mutation.${roots.insertOne}`, `mutation.${roots.update}`, `mutation.${roots.updateMany}`, `mutation.${roots.delete}`];
  if (hasKey) names.push(`query.${roots.selectByPk}`, `mutation.${roots.updateByPk}`, `mutation.${roots.deleteByPk}`);
  return names;
}

/** `a`, `a and b`, `a, b, and c`: Hasura's englishList. */
function englishList(items: string[]): string {
  if (items.length === 1) return items[0]!;
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}
