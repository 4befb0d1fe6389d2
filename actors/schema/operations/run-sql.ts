import pg from 'pg';
import { errors } from '../../../src/errors/errors.js';
import { ServiceError } from '../../../src/errors/service-error.js';
import { displayName } from '../../../src/metadata/names.js';
import { forgetPreparedStatements } from '../../../src/pg/prepared-statements.js';
import { newInconsistencies, type InconsistentObject } from '../consistency/inconsistency.js';
import type { Operation, OperationContext } from './operation.js';
import { renamedMetadata } from './renamed-metadata.js';
import { changesMetadata, schemaChanges, trackedTableOids, type SchemaChanges } from './schema-changes.js';
import { typeDependents } from './type-dependents.js';

interface RunSqlArgs {
  sql: string;
  cascade?: boolean;
  read_only?: boolean;
  check_metadata_consistency?: boolean;
}

/** run_sql answers every value as text, as Hasura does (`NULL` for null). */
const TEXT_TYPES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

function describe(item: InconsistentObject): string {
  const definition = item.definition as { name?: string; table?: { schema: string; name: string }; schema?: string };
  if (item.type === 'table') return `table ${displayName(definition as { schema: string; name: string })}`;
  if (item.type === 'function') return `function ${displayName((item.definition as { function: { schema: string; name: string } }).function)}`;
  if (definition.table !== undefined) return `${item.type.replace('_', ' ')} ${displayName(definition.table)}.${definition.name ?? ''}`;
  return `${item.type.replace('_', ' ')} ${definition.name ?? ''}`;
}

/**
 * run_sql (admin only, like every /v1/query operation): runs the SQL in the request's
 * transaction, re-reads the catalog, carries renamed tracked tables and columns into
 * the metadata, and refuses to commit SQL that changes the type of a column a
 * permission compares, or that breaks tracked metadata unless `cascade` drops what it
 * broke. A failed statement or a refusal rolls back the whole request (and the rest of a
 * bulk), since the runner rolls back its transaction.
 */
export const runSql: Operation<RunSqlArgs> = {
  type: 'run_sql',
  argsSchema: 'query/run_sql',
  runsCallerSql: true,
  async run(args, context) {
    const client = await context.transaction();
    if (args.read_only === true) await client.query('set transaction read only');
    // Migrations may run long: the statement timeout bounds GraphQL requests, not an admin's SQL.
    await client.query('set local statement_timeout = 0');
    const checked = args.read_only !== true && args.check_metadata_consistency !== false;
    const before = checked ? await trackedTableOids(client, context.metadata) : new Map();
    let results: pg.QueryResult<unknown[]>[];
    try {
      // No values: the simple query protocol, which runs several statements at once.
      const outcome = (await client.query({ text: args.sql, rowMode: 'array', types: TEXT_TYPES } as pg.QueryArrayConfig)) as unknown as pg.QueryResult<unknown[]> | pg.QueryResult<unknown[]>[];
      results = Array.isArray(outcome) ? outcome : [outcome];
    } catch (error) {
      throw postgresError(error, args.sql, context.argsPath);
    }
    // The SQL may have deallocated what the engine prepared on this connection, which the checks below use.
    await forgetPreparedStatements(client);
    const last = results[results.length - 1];
    const response = last === undefined || last.fields.length === 0
      ? { result_type: 'CommandOk', result: null }
      : { result_type: 'TuplesOk', result: [last.fields.map((field) => field.name), ...last.rows.map((row) => row.map((value) => (value === null ? 'NULL' : value)))] };

    if (!checked) return { response };
    const catalog = await context.reloadCatalog();
    const changes = await schemaChanges(client, before, context.catalog, catalog);
    refuseTypeChanges(context, changes);
    const followed = changesMetadata(changes) ? renamedMetadata(context.metadata, context.catalog, changes) : context.metadata;
    // Only a real change of the metadata is one (a new resource_version); dropping an unnamed column is not.
    const renamed = JSON.stringify(followed) === JSON.stringify(context.metadata) ? undefined : followed;
    const report = await context.check(followed, catalog);
    const broken = newInconsistencies(context.inconsistencies, report.inconsistencies);
    if (broken.length === 0) return { response, catalogChanged: true, ...(renamed === undefined ? {} : { metadata: renamed }) };
    // Compat-facts 6.3: overloading a tracked function is refused, cascade or not.
    const overloaded = broken.filter((item) => item.type === 'function' && item.reason.endsWith('Overloaded functions are not supported'));
    if (overloaded.length > 0) {
      const names = overloaded.map((item) => (item.definition as { function: { name: string } }).function.name).join(', ');
      throw errors.notSupported(context.argsPath, `the following tracked function(s) cannot be overloaded: ${names}`);
    }
    if (args.cascade !== true) {
      throw errors.dependencyError(context.argsPath, `cannot drop due to the following dependent objects : ${broken.map(describe).join(', ')}`).withInternal(broken);
    }
    // cascade: the metadata objects the SQL broke go, as drop_inconsistent_metadata would drop them.
    return { response, metadata: report.consistent };
  },
};

/**
 * A column whose type a permission compares cannot change type (Hasura's rule; the
 * permission's values were checked against the old type): the SQL is rolled back.
 */
function refuseTypeChanges(context: OperationContext, changes: SchemaChanges): void {
  for (const { tableKey, table, column } of changes.retyped) {
    const dependents = typeDependents(context.metadata, context.catalog, tableKey, column);
    if (dependents.length === 0) continue;
    throw errors.dependencyError(
      context.argsPath,
      `cannot change type of column ${JSON.stringify(column)} in table ${JSON.stringify(displayName(table))} because of the following dependencies : ${dependents.join(', ')}`,
    );
  }
}

/** A Postgres error as Hasura reports it from run_sql: the server's message, details in `internal`. */
function postgresError(error: unknown, statement: string, path: string): ServiceError {
  if (!(error instanceof pg.DatabaseError)) throw error;
  return errors.postgresQuery(path, error.message).withInternal({
    arguments: [],
    error: { description: error.detail ?? null, exec_status: 'FatalError', hint: error.hint ?? null, message: error.message, status_code: error.code ?? null },
    prepared: false,
    statement,
  });
}
