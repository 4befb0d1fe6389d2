import { useState } from 'react';
import { tableKey, type QualifiedName } from '../api/metadata';

/** Adds a computed field: a function of the table's row, shown as one more field of the table. */
export function ComputedFieldForm({ tables, functions, onSubmit }: { tables: QualifiedName[]; functions: QualifiedName[]; onSubmit: (args: unknown, name: string) => void }) {
  const [name, setName] = useState('');
  const [table, setTable] = useState('');
  const [fn, setFn] = useState('');
  const chosenTable = tables.find((candidate) => tableKey(candidate) === table) ?? tables[0];
  const chosenFunction = functions.find((candidate) => tableKey(candidate) === fn) ?? functions[0];
  return (
    <form
      className="panel"
      aria-labelledby="computed-title"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosenTable === undefined || chosenFunction === undefined) return;
        onSubmit({ table: chosenTable, name: name.trim(), definition: { function: chosenFunction } }, name.trim());
      }}
    >
      <h2 id="computed-title">Add a computed field</h2>
      <div className="fields">
        <label htmlFor="computed-name">Field name</label>
        <input id="computed-name" required value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor="computed-table">Table</label>
        <select id="computed-table" value={chosenTable === undefined ? '' : tableKey(chosenTable)} onChange={(event) => setTable(event.target.value)}>
          {tables.map((candidate) => (
            <option key={tableKey(candidate)}>{tableKey(candidate)}</option>
          ))}
        </select>
        <label htmlFor="computed-function">Function</label>
        <select id="computed-function" value={chosenFunction === undefined ? '' : tableKey(chosenFunction)} onChange={(event) => setFn(event.target.value)}>
          {functions.map((candidate) => (
            <option key={tableKey(candidate)}>{tableKey(candidate)}</option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={chosenTable === undefined || chosenFunction === undefined}>
        Add computed field
      </button>
    </form>
  );
}
