import { useState } from 'react';
import type { EngineClient } from '../../api/client';
import type { PermissionKind, QualifiedName } from '../../api/metadata';
import { attempt, Status, type Outcome } from '../../components/Status';

interface Props {
  client: EngineClient;
  table: QualifiedName;
  role: string;
  kind: PermissionKind;
  columns: string[];
  existing: Record<string, unknown> | undefined;
  onSaved: () => void;
}

/** Which parts each kind of permission has (Hasura's create_*_permission arguments). */
const PARTS: Record<PermissionKind, { columns: boolean; filter: boolean; check: boolean; set: boolean; select: boolean }> = {
  select: { columns: true, filter: true, check: false, set: false, select: true },
  insert: { columns: true, filter: false, check: true, set: true, select: false },
  update: { columns: true, filter: true, check: true, set: true, select: false },
  delete: { columns: false, filter: true, check: false, set: false, select: false },
};

const pretty = (value: unknown): string => JSON.stringify(value ?? {}, null, 2);

/** A JSON object from a text area, or the reason it is not one. */
function parseObject(text: string, what: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: `${what} must be a JSON object` };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { problem: `${what} is not valid JSON: ${(error as Error).message}` };
  }
}

/** One cell of the matrix: its columns, row filter, check, presets, limit and aggregations; saved with bulk drop+create. */
export function PermissionEditor({ client, table, role, kind, columns, existing, onSaved }: Props) {
  const parts = PARTS[kind];
  const initialColumns = existing?.columns === '*' ? columns : ((existing?.columns as string[] | undefined) ?? []);
  const [chosen, setChosen] = useState<string[]>(initialColumns);
  const [filter, setFilter] = useState(pretty(existing?.filter));
  const [check, setCheck] = useState(pretty(existing?.check));
  const [set, setSet] = useState(pretty(existing?.set));
  const [limit, setLimit] = useState(existing?.limit === undefined ? '' : String(existing.limit));
  const [aggregations, setAggregations] = useState(existing?.allow_aggregations === true);
  const [outcome, setOutcome] = useState<Outcome>({});
  const id = (part: string): string => `perm-${kind}-${part}`;
  const texts = [
    { on: parts.filter, part: 'filter', label: 'Row filter (boolean expression)', value: filter, change: setFilter },
    { on: parts.check, part: 'check', label: 'Check (boolean expression the new row must pass)', value: check, change: setCheck },
    { on: parts.set, part: 'set', label: 'Presets (column values, may name session variables)', value: set, change: setSet },
  ].filter((text) => text.on);
  const problems = texts.flatMap((text) => {
    const parsed = parseObject(text.value, text.part);
    return 'problem' in parsed ? [parsed.problem] : [];
  });

  const save = (): void => {
    const permission: Record<string, unknown> = {};
    if (parts.columns) permission.columns = chosen;
    for (const text of texts) permission[text.part] = JSON.parse(text.value) as unknown;
    if (parts.select && limit.trim() !== '') permission.limit = Number(limit);
    if (parts.select && aggregations) permission.allow_aggregations = true;
    const create = { type: `create_${kind}_permission`, args: { table, role, permission } };
    const steps = existing === undefined ? [create] : [{ type: `drop_${kind}_permission`, args: { table, role } }, create];
    void attempt(() => client.query('bulk', steps), setOutcome, `Saved the ${kind} permission of ${role}`).then((ok) => ok && onSaved());
  };
  const remove = (): void => void attempt(() => client.query(`drop_${kind}_permission`, { table, role }), setOutcome, `Removed the ${kind} permission of ${role}`).then((ok) => ok && onSaved());

  return (
    <form
      className="editor"
      aria-labelledby="editor-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (problems.length === 0) save();
      }}
    >
      <h3 id="editor-title">
        {kind} permission of {role}
      </h3>
      {parts.columns && (
        <fieldset>
          <legend>Columns</legend>
          {columns.map((column) => (
            <label key={column} className="check">
              <input type="checkbox" checked={chosen.includes(column)} onChange={(event) => setChosen(event.target.checked ? [...chosen, column] : chosen.filter((name) => name !== column))} />
              {column}
            </label>
          ))}
        </fieldset>
      )}
      {texts.map((text) => (
        <div key={text.part} className="field">
          <label htmlFor={id(text.part)}>{text.label}</label>
          <textarea id={id(text.part)} rows={4} spellCheck={false} value={text.value} onChange={(event) => text.change(event.target.value)} aria-invalid={'problem' in parseObject(text.value, text.part)} />
        </div>
      ))}
      {parts.select && (
        <div className="field row">
          <label htmlFor={id('limit')}>Row limit</label>
          <input id={id('limit')} type="number" min={0} value={limit} onChange={(event) => setLimit(event.target.value)} />
          <label className="check">
            <input type="checkbox" checked={aggregations} onChange={(event) => setAggregations(event.target.checked)} />
            Allow aggregations
          </label>
        </div>
      )}
      {problems.map((problem) => (
        <p key={problem} className="status error" role="alert">
          {problem}
        </p>
      ))}
      <Status error={outcome.error} message={outcome.message} />
      <div className="row">
        <button type="submit" disabled={problems.length > 0}>
          Save permission
        </button>
        {existing !== undefined && (
          <button type="button" className="danger" onClick={remove}>
            Remove permission
          </button>
        )}
      </div>
    </form>
  );
}
