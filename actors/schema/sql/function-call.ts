import { errors } from '../../../src/errors/errors.js';
import type { QualifiedName } from '../../../src/metadata/types.js';
import { qualified, quoteIdent } from '../../../src/pg/quote.js';
import type { ArgumentModel } from '../models/function-model.js';
import type { CompileContext } from './context.js';
import type { Input } from './input.js';
import { operandParam } from './operand-params.js';

/**
 * A call of a tracked function or a computed field's function, every value a parameter:
 * the caller's `args`, the session variables as one JSON object for the session argument
 * (lower-case keys, compat-facts 6.2), and the row of the table for a computed field.
 *
 * As in Hasura, arguments go by position up to the first one left out; after it the
 * rest must go by name, so an unnamed argument there is refused ("Only last set of
 * positional arguments can be omitted"), and so is any missing argument without a default.
 */
export interface CallSite {
  function: QualifiedName;
  arguments: readonly ArgumentModel[];
  /** The field's `args` argument, when given. */
  args: Input | undefined;
  /** For a computed field: the row argument, `"_1"` cast to the table's row type. */
  row?: string;
}

export function functionCall(context: CompileContext, site: CallSite): string {
  const { reader, params } = context;
  const given = new Map<string, Input>(site.args === undefined || reader.isNull(site.args) ? [] : reader.fields(site.args));
  const path = site.args?.path ?? '$';
  const rendered: string[] = [];
  let byName = false;
  for (const slot of site.arguments) {
    let value: string;
    let sqlName: string | null;
    if (slot.kind === 'session') {
      value = params.add({ kind: 'session-json' }, slot.sqlType);
      sqlName = slot.sqlName;
    } else if (slot.kind === 'row') {
      value = site.row!;
      sqlName = slot.sqlName;
    } else {
      const input = given.get(slot.name);
      if (input === undefined) {
        if (!slot.hasDefault) throw errors.functionArgumentRequired(path);
        byName = true;
        continue;
      }
      // An explicit null is the SQL NULL of the argument's type (Postgres arguments are nullable).
      const { sqlType, encoding, construct } = operandParam(slot.type, 'scalar');
      value = reader.isNull(input) ? `null::${slot.type.sqlType}` : construct(reader.param(input, params, sqlType, encoding, slot.type.scalar));
      sqlName = slot.sqlName;
    }
    if (!byName) rendered.push(value);
    else if (sqlName === null) throw errors.positionalArgumentOmitted(path);
    else rendered.push(`${quoteIdent(sqlName)} => ${value}`);
  }
  // A function's body may read any table: a statement calling one is not covered by the change feed.
  context.reads.callsFunctions = true;
  return `${qualified(site.function.schema, site.function.name)}(${rendered.join(', ')})`;
}

/** The whole row under `alias` as an argument of the table's row type (also when `alias` names a subquery). */
export function rowArgument(alias: string, table: QualifiedName): string {
  return `${quoteIdent(alias)}::${qualified(table.schema, table.name)}`;
}
