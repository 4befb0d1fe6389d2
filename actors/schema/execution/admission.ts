import { Kind, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { graphqlErrorBody } from '../../../src/errors/bodies.js';
import { errors } from '../../../src/errors/errors.js';
import { LruCache } from '../../../src/cache/lru.js';
import type { Metadata } from '../../../src/metadata/types.js';
import { isAdmin, type Session } from '../../../src/session/session.js';
import { AllowList, normalizedText } from '../models/allow-list.js';

/**
 * Who may run what, before anything is planned: the allowlist (SERVICE_GRAPHQL_ENABLE_ALLOWLIST)
 * and the roles that may not introspect (set_graphql_schema_introspection_options). Admin
 * passes both, as in Hasura. Each answers null to let the request on, or the body refusing it.
 */
export interface Admission {
  /**
   * Before the document is validated, as Hasura's checkQueryInAllowlist runs, so a refused
   * role learns nothing of the schema from validation errors. A text that does not parse
   * is let on to be refused as such.
   */
  admit(query: string, session: Session): Uint8Array | null;
  /** After the operation is chosen: `__schema` and `__type` among its root fields. */
  introspection(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, session: Session): Uint8Array | null;
}

export interface AdmissionOptions {
  enableAllowlist?: boolean;
  /** Distinct query texts whose normal form is kept. */
  planCacheSize?: number;
}

const NOT_ALLOWED = graphqlErrorBody([errors.queryNotAllowed('$')]);
const INTROSPECTION_DISABLED = graphqlErrorBody([errors.introspectionDisabled('$')]);
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

export function admissionFor(metadata: Metadata, options: AdmissionOptions): Admission {
  const allowList = options.enableAllowlist === true ? AllowList.from(metadata) : null;
  // The normal form of each query text (or null: it does not parse), so a listed query costs one lookup.
  const normalForms = new LruCache<string | null>(options.planCacheSize ?? 1000);
  const introspectionDisabled = new Set(metadata.graphql_schema_introspection?.disabled_for_roles ?? []);
  return {
    admit(query, session) {
      if (allowList === null || isAdmin(session)) return null;
      let normalized = normalForms.get(query);
      if (normalized === undefined) normalForms.set(query, (normalized = normalizedText(query)));
      if (normalized === null || allowList.allows(session.role, normalized)) return null;
      return NOT_ALLOWED;
    },
    introspection(operation, fragments, session) {
      if (!introspectionDisabled.has(session.role) || isAdmin(session)) return null;
      return introspects(operation.selectionSet, fragments, new Set()) ? INTROSPECTION_DISABLED : null;
    },
  };
}

/** Whether a root selection set asks for `__schema` or `__type`, through fragments too. */
function introspects(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, visited: Set<string>): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return introspects(selection.selectionSet, fragments, visited);
    const name = selection.name.value;
    const fragment = fragments.get(name);
    if (fragment === undefined || visited.has(name)) return false;
    visited.add(name);
    return introspects(fragment.selectionSet, fragments, visited);
  });
}
