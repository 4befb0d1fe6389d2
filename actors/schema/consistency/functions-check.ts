import { gatherFunctionFacts, hasFunctionsOrComputedFields, trackedKeysOf } from '../../../src/functions/facts.js';
import { computedFieldFunction, describeComputedField } from '../../../src/functions/rules/computed-field-rules.js';
import { describeFunction } from '../../../src/functions/rules/function-rules.js';
import { quoted } from '../../../src/metadata/names.js';
import type { Metadata, TableEntry } from '../../../src/metadata/types.js';
import { relationKey, type Catalog } from '../../../src/pg/catalog.js';
import type { InconsistentObject } from './inconsistency.js';

/**
 * The computed field and function passes of the consistency check: each object is
 * judged by the function rules (src/functions) against the catalog. Objects that
 * fail are reported and left out of the served metadata, and so are select permissions
 * that list a computed field that is gone.
 */
export function withFunctionsChecked(metadata: Metadata, catalog: Catalog, inconsistencies: InconsistentObject[]): Metadata {
  const source = metadata.sources[0]!;
  // Every operation checks: without functions or computed fields, the entries stay as they are rather than copied.
  if (!hasFunctionsOrComputedFields(source)) return metadata;
  const tracked = trackedKeysOf(source.tables);
  const tables = source.tables.map((entry) => withComputedFieldsChecked(entry, source.name, catalog, tracked, inconsistencies));
  const functions = (source.functions ?? []).filter((entry) => {
    const verdict = describeFunction(entry, gatherFunctionFacts(catalog, entry.function, tracked));
    if (verdict.ok) return true;
    inconsistencies.push({ type: 'function', definition: { ...entry, source: source.name }, reason: verdict.reason });
    return false;
  });
  const next = { ...source, tables };
  if (source.functions !== undefined) next.functions = functions;
  return { ...metadata, sources: [next, ...metadata.sources.slice(1)] };
}

function withComputedFieldsChecked(entry: TableEntry, sourceName: string, catalog: Catalog, tracked: ReadonlySet<string>, inconsistencies: InconsistentObject[]): TableEntry {
  if (entry.computed_fields === undefined || entry.computed_fields.length === 0) return entry;
  const relation = catalog.relations.get(relationKey(entry.table.schema, entry.table.name))!;
  const columns = relation.columns.map((column) => column.name);
  const computed_fields = entry.computed_fields.filter((field) => {
    const verdict = describeComputedField({ table: entry.table, columns, field }, gatherFunctionFacts(catalog, computedFieldFunction(field), tracked));
    if (verdict.ok) return true;
    inconsistencies.push({ type: 'computed_field', definition: { ...field, source: sourceName, table: entry.table }, reason: verdict.reason });
    return false;
  });
  const names = new Set(computed_fields.map((field) => field.name));
  const select_permissions = entry.select_permissions?.filter((item) => {
    const missing = (item.permission.computed_fields ?? []).find((name) => !names.has(name));
    if (missing === undefined) return true;
    inconsistencies.push({
      type: 'select_permission',
      definition: { role: item.role, permission: item.permission, source: sourceName, table: entry.table },
      reason: `in table ${quoted(entry.table)}: in permission for role ${JSON.stringify(item.role)}: computed field ${JSON.stringify(missing)} does not exist`,
    });
    return false;
  });
  // An entry with nothing left out stays the same object (table-memo.ts).
  if (computed_fields.length === entry.computed_fields.length && select_permissions?.length === entry.select_permissions?.length) return entry;
  const next: TableEntry = { ...entry, computed_fields };
  if (select_permissions !== undefined) next.select_permissions = select_permissions;
  return next;
}
