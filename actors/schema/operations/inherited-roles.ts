import { errors } from '../../../src/errors/errors.js';
import type { InheritedRoleEntry } from '../../../src/metadata/types.js';
import { ADMIN_ROLE } from '../../../src/session/session.js';
import { SUCCESS, type Operation } from './operation.js';

/**
 * add_inherited_role and drop_inherited_role (Hasura/RQL/DDL/InheritedRoles.hs). Adding
 * a role of a name already inherited replaces it, as Hasura's metadata insert does; a role
 * set naming unknown roles is refused by the consistency check, and a cycle by the runner
 * (inherited-roles.ts, roleCycles).
 */
export const addInheritedRole: Operation<InheritedRoleEntry> = {
  type: 'add_inherited_role',
  argsSchema: 'query/add_inherited_role',
  async run(args, context) {
    if (args.role_name === ADMIN_ROLE) throw errors.notSupported(`${context.argsPath}.role_name`, 'the admin role has every permission; it cannot be an inherited role');
    if (args.role_set.includes(args.role_name)) throw errors.invalidParams(context.argsPath, 'an inherited role name cannot be in the role combination');
    const entry: InheritedRoleEntry = { role_name: args.role_name, role_set: args.role_set };
    if (args.comment != null) entry.comment = args.comment;
    const others = (context.metadata.inherited_roles ?? []).filter((role) => role.role_name !== args.role_name);
    return { response: SUCCESS, metadata: { ...context.metadata, inherited_roles: [...others, entry] } };
  },
};

export const dropInheritedRole: Operation<{ role_name: string }> = {
  type: 'drop_inherited_role',
  argsSchema: 'query/drop_inherited_role',
  async run(args, context) {
    const roles = context.metadata.inherited_roles ?? [];
    if (!roles.some((role) => role.role_name === args.role_name)) {
      throw errors.notExists(`${context.argsPath}`, `${JSON.stringify(args.role_name)} inherited role doesn't exist`);
    }
    return { response: SUCCESS, metadata: { ...context.metadata, inherited_roles: roles.filter((role) => role.role_name !== args.role_name) } };
  },
};
