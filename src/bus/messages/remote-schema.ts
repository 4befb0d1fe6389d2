import type { RemoteSchemaEntry } from '../../metadata/types.js';
import type { Session } from '../../session/session.js';

/**
 * The messages of `<p>.remote.<verb>` (REMOTE_VERBS; schemas/bus/remote-*.json), shared
 * by the schema actor, which asks, and the remote-schema actor, which answers. A remote
 * travels as its definition and the id of its stored introspection (a snapshot), never
 * the introspection itself: any instance of the remote-schema actor reads a snapshot by
 * its id, so messages stay small however large a remote's schema is.
 */
export type RemoteDefinition = RemoteSchemaEntry['definition'];

/** One remote schema as metadata holds it, with the snapshot the cluster serves. */
export interface RemoteSource {
  name: string;
  definition: RemoteDefinition;
  snapshot: string;
}

/** `check` and `introspect`: a remote by its definition alone. */
export interface RemoteDefinitionRequest {
  name: string;
  definition: RemoteDefinition;
}

export interface IntrospectReply {
  snapshot: string;
}

export interface SnapshotRequest {
  snapshot: string;
}

export interface SnapshotReply {
  /** The introspection response as the remote sent it (introspect_remote_schema answers it verbatim). */
  introspection: string;
}

export interface RolePermissionSource {
  role: string;
  /** The role's SDL (interface 2.3). */
  schema: string;
}

export interface DescribeRequest {
  remotes: (RemoteSource & { permissions: RolePermissionSource[] })[];
}

/**
 * What the schema actor needs to decide a remote's consistency against the tables and
 * the other remotes: its served root fields, the shape of every type it serves
 * (src/graphql/type-shape.ts) and, per role, why its permission is refused (null: it fits).
 */
export type RemoteDescription =
  | { ok: false; reason: string }
  | {
      ok: true;
      root_fields: { query: string[]; mutation: string[]; subscription: string[] };
      types: Record<string, string>;
      permissions: Record<string, string | null>;
    };

export interface DescribeReply {
  remotes: Record<string, RemoteDescription>;
}

/** A remote as one role sees it: `permission` is the role's SDL, or null for the whole remote. */
export interface RoleRemoteSource extends RemoteSource {
  permission: string | null;
}

export interface RoleViewRequest {
  remotes: RoleRemoteSource[];
}

/**
 * One role's remote schemas merged: SDL whose roots are `query_root` and `mutation_root`
 * (the engine's), the remote that serves each root field, and the remote subscription
 * fields (never served; kept for the refusal's message).
 */
export interface RoleViewReply {
  sdl: string;
  routes: { query: Record<string, string>; mutation: Record<string, string> };
  subscription_fields: string[];
}

/**
 * One operation whose root fields all come from `remote`, validated by the schema actor
 * against the role's schema. Root `__typename`, `__schema` and `__type` are the schema
 * actor's to answer: the reply holds the remote's fields only. The reply is the response
 * body as the client gets it; the remote's `Set-Cookie` values are in the reply meta
 * under META.setCookie (wire.ts).
 */
export interface ExecuteRequest {
  remote: RoleRemoteSource;
  query: string;
  operationName: string | null;
  variables: Record<string, unknown>;
  session: Session;
  /** The client's request headers, for `forward_client_headers`. */
  headers: Record<string, string>;
}
