import { useState } from 'react';
import type { EngineClient } from '../../api/client';
import { PERMISSION_KINDS, rolesOf, type Metadata, type PermissionKind, type TableMetadata } from '../../api/metadata';
import { PermissionEditor } from './PermissionEditor';

/** How much a role may do: none, everything (no filter, every column), or a part of it. */
function access(permission: Record<string, unknown> | undefined, columns: string[]): 'none' | 'full' | 'partial' {
  if (permission === undefined) return 'none';
  const filter = permission.filter ?? permission.check ?? {};
  const allowed = permission.columns;
  const allColumns = allowed === '*' || allowed === undefined || (Array.isArray(allowed) && columns.every((column) => allowed.includes(column)));
  return JSON.stringify(filter) === '{}' && allColumns ? 'full' : 'partial';
}

const SYMBOL = { none: '✕', full: '✓', partial: '◐' } as const;

/** Roles × select/insert/update/delete; a cell opens that permission's editor. */
export function PermissionMatrix({ client, entry, metadata, columns, onChange }: { client: EngineClient; entry: TableMetadata; metadata: Metadata; columns: string[]; onChange: () => void }) {
  const [added, setAdded] = useState<string[]>([]);
  const [newRole, setNewRole] = useState('');
  const [editing, setEditing] = useState<{ role: string; kind: PermissionKind }>();
  const roles = [...new Set([...rolesOf(metadata), ...added])].filter((role) => role !== 'admin');
  const permissionOf = (role: string, kind: PermissionKind) => entry[`${kind}_permissions`]?.find((candidate) => candidate.role === role)?.permission;
  return (
    <section aria-labelledby="permissions-title" className="panel">
      <h2 id="permissions-title">Permissions</h2>
      <p className="hint">✓ everything, ◐ some columns or rows, ✕ nothing. admin may do everything.</p>
      <table className="grid matrix">
        <thead>
          <tr>
            <th scope="col">Role</th>
            {PERMISSION_KINDS.map((kind) => (
              <th scope="col" key={kind}>
                {kind}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {roles.map((role) => (
            <tr key={role}>
              <th scope="row">{role}</th>
              {PERMISSION_KINDS.map((kind) => {
                const level = access(permissionOf(role, kind), columns);
                const selected = editing?.role === role && editing.kind === kind;
                return (
                  <td key={kind} className={selected ? 'selected' : undefined}>
                    <button type="button" className={`cell ${level}`} aria-pressed={selected} aria-label={`${kind} permission of ${role}: ${level}`} onClick={() => setEditing({ role, kind })}>
                      {SYMBOL[level]}
                    </button>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const role = newRole.trim();
          if (role === '' || role === 'admin') return;
          setAdded([...added, role]);
          setNewRole('');
        }}
      >
        <label htmlFor="new-role">New role</label>
        <input id="new-role" value={newRole} onChange={(event) => setNewRole(event.target.value)} />
        <button type="submit" className="secondary">
          Add role
        </button>
      </form>
      {editing !== undefined && (
        <PermissionEditor
          key={`${editing.role}/${editing.kind}`}
          client={client}
          table={entry.table}
          role={editing.role}
          kind={editing.kind}
          columns={columns}
          existing={permissionOf(editing.role, editing.kind)}
          onSaved={onChange}
        />
      )}
    </section>
  );
}
