import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConsistency, type ConsistencyReport } from '../../actors/schema/consistency/check.js';
import { buildSourceModel, type SourceModel } from '../../actors/schema/models/table-model.js';
import { normalizeMetadata } from '../../src/metadata/normalize.js';
import { defaultSource, type Metadata, type TableEntry } from '../../src/metadata/types.js';
import { introspectCatalog, type Catalog } from '../../src/pg/catalog.js';
import { createTestDatabase, type TestDatabase } from '../harness/database.js';
import { seededRandom } from '../harness/seeded-random.js';

/**
 * The consistency check and the source model keep what an operation left alone from one
 * metadata version to the next (kept-outcomes.ts, table-model.ts): a chain of operations
 * checked one after the other must report exactly what a check of each version from
 * scratch reports, whatever the operations reach through relationships, names and roles.
 */
const TABLES = 12;
const STEPS = 400;

let db: TestDatabase;
let catalog: Catalog;

beforeAll(async () => {
  db = await createTestDatabase();
  const statements: string[] = [];
  for (let i = 0; i < TABLES; i++) {
    statements.push(`create table c${i} (id integer primary key, name text, active boolean${i === 0 ? '' : `, parent_id integer references c${i - 1}(id)`})`);
  }
  statements.push('create function c0_children(parent c0) returns setof c1 language sql stable as $$ select * from c1 where parent_id = parent.id $$');
  await db.sql(statements.join(';\n'));
  catalog = await introspectCatalog(db.pool);
});

afterAll(async () => {
  await db?.drop();
});

/** Table `i` as tracked with its relationships and permissions, as a new object. */
function trackedEntry(i: number): TableEntry {
  const entry: TableEntry = { table: { schema: 'public', name: `c${i}` } };
  if (i > 0) entry.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }];
  if (i < TABLES - 1) entry.array_relationships = [{ name: 'children', using: { foreign_key_constraint_on: { table: { schema: 'public', name: `c${i + 1}` }, column: 'parent_id' } } }];
  entry.select_permissions = [{ role: 'user', permission: { columns: ['id', 'name'], filter: i > 1 ? { parent: { parent: { active: { _eq: true } } } } : { active: { _eq: true } } } }];
  if (i > 0) entry.insert_permissions = [{ role: 'user', permission: { columns: ['id', 'name', 'parent_id'], check: { parent: { active: { _eq: true } } } } }];
  return entry;
}

type Edit = (metadata: Metadata, pick: (below: number) => number) => Metadata;

const withEntries = (metadata: Metadata, change: (tables: TableEntry[]) => TableEntry[]): Metadata => ({ ...metadata, sources: [{ ...metadata.sources[0]!, tables: change(metadata.sources[0]!.tables) }] });
const number = (entry: TableEntry) => Number(entry.table.name.slice(1));
const editOne = (metadata: Metadata, pick: (below: number) => number, change: (entry: TableEntry) => TableEntry): Metadata => {
  const tables = metadata.sources[0]!.tables;
  if (tables.length === 0) return metadata;
  const at = pick(tables.length);
  return withEntries(metadata, (entries) => entries.map((entry, index) => (index === at ? change(entry) : entry)));
};

const EDITS: Record<string, Edit> = {
  untrack: (metadata, pick) => {
    const tables = metadata.sources[0]!.tables;
    const at = pick(tables.length);
    return withEntries(metadata, (entries) => entries.filter((_, index) => index !== at));
  },
  track: (metadata, pick) => {
    const tracked = new Set(metadata.sources[0]!.tables.map(number));
    const missing = Array.from({ length: TABLES }, (_, i) => i).filter((i) => !tracked.has(i));
    return missing.length === 0 ? metadata : withEntries(metadata, (entries) => [...entries, trackedEntry(missing[pick(missing.length)]!)]);
  },
  dropRelationship: (metadata, pick) => editOne(metadata, pick, (entry) => (pick(2) === 0 ? { ...entry, object_relationships: [] } : { ...entry, array_relationships: [] })),
  restore: (metadata, pick) => editOne(metadata, pick, (entry) => trackedEntry(number(entry))),
  crossingPermission: (metadata, pick) =>
    editOne(metadata, pick, (entry) => ({ ...entry, select_permissions: [...(entry.select_permissions ?? []).filter((item) => item.role !== 'crossing'), { role: 'crossing', permission: { columns: ['id'], filter: { children: { parent: { name: { _eq: 'x' } } } } } }] })),
  brokenPermission: (metadata, pick) => editOne(metadata, pick, (entry) => ({ ...entry, select_permissions: [...(entry.select_permissions ?? []).filter((item) => item.role !== 'broken'), { role: 'broken', permission: { columns: ['missing'], filter: {} } }] })),
  backendOnly: (metadata, pick) => editOne(metadata, pick, (entry) => ({ ...entry, update_permissions: [{ role: 'service', permission: { columns: ['name'], filter: { parent: { id: { _gt: 0 } } }, backend_only: true } }] })),
  clashingName: (metadata, pick) => editOne(metadata, pick, (entry) => ({ ...entry, configuration: { custom_name: `c${pick(TABLES)}` } })),
  plainName: (metadata, pick) => editOne(metadata, pick, (entry) => {
    const { configuration: _, ...rest } = entry;
    return rest;
  }),
  copy: (metadata, pick) => editOne(metadata, pick, (entry) => structuredClone(entry)),
  manualToUntracked: (metadata, pick) => editOne(metadata, pick, (entry) => ({ ...entry, object_relationships: [...(entry.object_relationships ?? []).filter((item) => item.name !== 'manual'), { name: 'manual', using: { manual_configuration: { remote_table: { schema: 'public', name: `c${pick(TABLES)}` }, column_mapping: { id: 'id' } } } }] })),
  inheritedRole: (metadata) => (metadata.inherited_roles === undefined ? { ...metadata, inherited_roles: [{ role_name: 'both', role_set: ['user', 'crossing'] }] } : { ...metadata, inherited_roles: undefined }),
};

/** What a check and the model built on its consistent part show, as text. */
function shown(report: ConsistencyReport, model: SourceModel): string {
  const tables = [...model.tables.values()].map((table) => ({
    key: table.key,
    typeName: table.typeName,
    relationships: table.relationships,
    select: [...table.selectPermissions.keys()],
    inherited: [...table.inheritedSelect.keys()],
    update: [...table.updatePermissions.keys()],
  }));
  return JSON.stringify({
    consistent: report.consistent,
    inconsistencies: report.inconsistencies,
    tables,
    roles: [...model.roleTables].sort(),
    backendOnly: [...model.backendOnlyRoleTables].sort(),
    computedFields: [...model.functions.computedFields.keys()],
  });
}

describe('checks kept from one metadata version to the next', () => {
  it('report what a check from scratch reports, operation after operation', () => {
    const pick = seededRandom(16);
    const names = Object.keys(EDITS);
    let metadata = normalizeMetadata({ version: 3, sources: [defaultSource(Array.from({ length: TABLES }, (_, i) => trackedEntry(i)))] });
    const versions: { edit: string; metadata: Metadata; kept: string }[] = [];
    for (let step = 0; step < STEPS; step++) {
      const edit = names[pick(names.length)]!;
      metadata = normalizeMetadata(EDITS[edit]!(metadata, pick));
      const report = checkConsistency(metadata, catalog);
      versions.push({ edit, metadata, kept: shown(report, buildSourceModel(report.consistent, catalog)) });
    }
    // Every entry a new object: nothing kept applies.
    const fresh = versions.map(({ metadata: version }) => {
      const copy = structuredClone(version);
      const report = checkConsistency(copy, catalog);
      return shown(report, buildSourceModel(report.consistent, catalog));
    });
    versions.forEach((version, step) => expect(version.kept, `step ${step} (${version.edit})`).toBe(fresh[step]));
    // The chain went through the cases that matter.
    expect(new Set(versions.map((version) => version.edit))).toEqual(new Set(names));
    expect(versions.some((version) => version.kept.includes('is already used by'))).toBe(true);
    expect(versions.some((version) => version.kept.includes('is not tracked'))).toBe(true);
  });
});

describe('the source model kept from one build to the next', () => {
  it('serves a computed field of a table left in place once the table it returns is tracked', () => {
    const withField: TableEntry = { table: { schema: 'public', name: 'c0' }, computed_fields: [{ name: 'children', definition: { function: { schema: 'public', name: 'c0_children' } } }] };
    const before = normalizeMetadata({ version: 3, sources: [defaultSource([withField])] });
    // c1 is not tracked: the computed field returning its rows is left out.
    expect([...buildSourceModel(before, catalog).functions.computedFields.keys()]).toEqual([]);
    const after = normalizeMetadata({ ...before, sources: [{ ...before.sources[0]!, tables: [...before.sources[0]!.tables, { table: { schema: 'public', name: 'c1' } }] }] });
    expect(after.sources[0]!.tables[0]).toBe(before.sources[0]!.tables[0]);
    const fields = (model: SourceModel) => [...model.functions.computedFields.values()].flat().map((field) => field.name);
    expect(fields(buildSourceModel(after, catalog))).toEqual(fields(buildSourceModel(structuredClone(after), catalog)));
    expect(fields(buildSourceModel(after, catalog))).toEqual(['children']);
  });
});
