import { displayName } from '../../../src/metadata/names.js';
import type { Metadata, PermissionEntry } from '../../../src/metadata/types.js';
import { inheritedRolesOf, inheritedPermission, knownRoles } from '../models/inherited-roles.js';
import { INHERITED_PERMISSION_CONFLICT, type InconsistentObject } from './inconsistency.js';

const WRITE_KINDS = ['insert', 'update', 'delete'] as const;

/**
 * Inherited roles whose role set names a role `declared` (the metadata as written) does not know (no permission
 * anywhere, not an inherited role) are inconsistent and left out, with Hasura's reason;
 * write permissions their parents disagree on are reported (Hasura's informational
 * "inherited role permission inconsistency"), the role getting none there.
 */
export function withInheritedRolesChecked(metadata: Metadata, declared: Metadata, inconsistencies: InconsistentObject[]): Metadata {
  if ((metadata.inherited_roles ?? []).length === 0) return metadata;
  // Roles are known by the metadata as written, inconsistent permissions included (Hasura's allRoles).
  const roles = knownRoles(declared);
  const inherited_roles = metadata.inherited_roles!.filter((entry) => {
    const missing = [...new Set(entry.role_set)].filter((role) => !roles.has(role));
    if (missing.length === 0) return true;
    inconsistencies.push({
      type: 'inherited_role',
      definition: entry,
      reason: `the following parent role(s) are not found: ${missing.join(', ')} which are required to construct the inherited role: ${JSON.stringify(entry.role_name)}`,
    });
    return false;
  });
  const checked: Metadata = { ...metadata, inherited_roles };
  const inherited = inheritedRolesOf(checked);
  for (const source of checked.sources) {
    for (const table of source.tables) {
      for (const kind of WRITE_KINDS) {
        const own = new Map(((table[`${kind}_permissions`] ?? []) as PermissionEntry<unknown>[]).map((item) => [item.role, item.permission]));
        for (const role of inherited.keys()) {
          if (inheritedPermission(role, own, inherited).kind !== 'conflict') continue;
          inconsistencies.push({
            type: INHERITED_PERMISSION_CONFLICT,
            reason: `Could not inherit permission for the role '${role}' for the entity: '${kind} permission, table: ${displayName(table.table)}, source: '${source.name}''`,
            name: role,
            entity: { permission_type: kind, source: source.name, table: displayName(table.table) },
          });
        }
      }
    }
  }
  return checked;
}
