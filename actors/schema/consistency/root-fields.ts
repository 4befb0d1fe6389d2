import { sameFunction, sameTable } from '../../../src/metadata/edit.js';
import type { Metadata, QualifiedName, TableConfiguration, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import { trackedFunctionModels, type FunctionModel } from '../models/function-model.js';
import { rootFieldsOf, tableTypeName } from '../models/table-model.js';
import { TableMemo } from '../models/table-memo.js';

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
  const own: string[] = [];
  for (const entry of tables) if ('table' in owner && sameTable(entry.table, owner.table)) own.push(...tableNamesOf(entry, catalog));
  for (const fn of functions) if ('function' in owner && sameFunction(fn.function, owner.function)) own.push(...functionNames(fn));
  // The owner's few names against every other object's, without a set of all of them.
  const taken = new Set<string>();
  const wanted = new Set(own);
  const meet = (name: string) => {
    if (wanted.has(name)) taken.add(name);
  };
  for (const entry of tables) if (!('table' in owner && sameTable(entry.table, owner.table))) for (const name of tableNamesOf(entry, catalog)) meet(name);
  for (const fn of functions) if (!('function' in owner && sameFunction(fn.function, owner.function))) for (const name of functionNames(fn)) meet(name);
  const name = own.find((candidate) => taken.has(candidate));
  return name === undefined ? null : name.slice(name.indexOf('.') + 1);
}

/**
 * Which tables claim each name, kept from one check to the next and updated by the tables
 * that came or went: an operation changes a table or two, while a run over every name of
 * thousands of tables was tens of milliseconds on every operation. Names only one table
 * claims cannot clash, so the claiming order matters only among the tables that claim one
 * of the few contested names.
 */
interface NameIndex {
  relations: Catalog['relations'];
  names: Map<TableEntry, readonly string[]>;
  claimants: Map<string, TableEntry[]>;
  /** Names claimed more than once (by two tables, or twice by one). */
  contested: Set<string>;
}

let kept: NameIndex | null = null;

function nameIndex(entries: readonly TableEntry[], catalog: Catalog): NameIndex {
  // A new catalog may change any table's names (a primary key gives `_by_pk` fields).
  const index: NameIndex = kept !== null && kept.relations === catalog.relations ? kept : { relations: catalog.relations, names: new Map(), claimants: new Map(), contested: new Set() };
  // Let go while it is updated: a failure half way must not leave a wrong index behind.
  kept = null;
  const present = new Set(entries);
  for (const [entry, names] of index.names) {
    if (present.has(entry)) continue;
    index.names.delete(entry);
    for (const name of names) {
      const claimants = index.claimants.get(name)!;
      claimants.splice(claimants.indexOf(entry), 1);
      if (claimants.length === 0) index.claimants.delete(name);
      if (claimants.length < 2) index.contested.delete(name);
    }
  }
  for (const entry of entries) {
    if (index.names.has(entry)) continue;
    const names = tableNamesOf(entry, catalog);
    index.names.set(entry, names);
    for (const name of names) {
      const claimants = index.claimants.get(name);
      if (claimants === undefined) index.claimants.set(name, [entry]);
      else {
        claimants.push(entry);
        index.contested.add(name);
      }
    }
  }
  kept = index;
  return index;
}

/**
 * The tables whose type or root field name another table already claims (or that repeat a
 * name of their own), each with the name and the table that holds it; they are left out,
 * so a clash in replaced or reloaded metadata leaves every name answering for one table.
 * Tables that customize no names claim first: a table keeps its own name against another's
 * custom one.
 */
export function laterNameClaims(entries: readonly TableEntry[], catalog: Catalog): Map<TableEntry, { name: string; holder: QualifiedName }> {
  const index = nameIndex(entries, catalog);
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
