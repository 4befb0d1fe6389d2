import { errors } from '../../../src/errors/errors.js';
import type { QualifiedName } from '../../../src/metadata/types.js';
import { relationKey } from '../../../src/pg/catalog.js';
import { readEnumRows } from '../consistency/enum-rows.js';
import { enumTableProblems, enumTableReason } from '../models/enum-tables.js';
import type { OperationContext } from './operation.js';

/**
 * Refuses to make a table an enum that cannot be one, with Hasura's `constraint-violation`
 * and its reasons (set_table_is_enum, track_table with `is_enum`), rather than the
 * inconsistency the check would report for it.
 */
export async function assertUsableAsEnum(context: OperationContext, table: QualifiedName): Promise<void> {
  const relation = context.catalog.relations.get(relationKey(table.schema, table.name));
  if (relation === undefined) return;
  const problems = enumTableProblems(relation, (await readEnumRows(context.reader(), relation)) ?? undefined);
  if (problems.length > 0) throw errors.notAnEnumTable(context.argsPath, enumTableReason(table, problems));
}
