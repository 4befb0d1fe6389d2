import type { ReactNode } from 'react';

/** A table of records with a header row; `label` names it for screen readers (and tests). */
export function DataTable({ columns, label, children }: { columns: string[]; label?: string; children: ReactNode }) {
  return (
    <table className="grid" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
