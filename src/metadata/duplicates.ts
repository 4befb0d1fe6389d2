import { errors } from '../errors/errors.js';
import { appendPath } from '../errors/json-path.js';
import { displayName } from './names.js';
import type { Metadata } from './types.js';

interface Declarations {
  /** How Hasura's parseListAsMap names the kind in its message: `select permissions`. */
  things: string;
  /** Where the list is, for the error's path. */
  path: string;
  names: readonly string[];
}

/**
 * Refuses metadata that declares one thing twice (Hasura's `parseListAsMap`, compat-facts
 * 1.3: `already-exists`). Without it the later declaration silently wins: a second
 * permission for the same role and table could widen what the role sees.
 */
export function refuseDuplicateDeclarations(metadata: Metadata, root: string): void {
  for (const declarations of listDeclarations(metadata, root)) {
    const duplicates = repeatedNames(declarations.names);
    if (duplicates.length === 0) continue;
    // Trigger names are global to the source, and Hasura words this one apart (compat-facts: not-supported).
    if (declarations.things === 'event triggers') throw errors.notSupported(declarations.path, `Event trigger with duplicate names not allowed: ${duplicates.map((name) => JSON.stringify(name)).join(', ')}`);
    throw errors.alreadyExists(declarations.path, `multiple declarations exist for the following ${declarations.things}: ${duplicates.join(', ')}`);
  }
}

function listDeclarations(metadata: Metadata, root: string): Declarations[] {
  const found: Declarations[] = [];
  const sourcesPath = appendPath(root, 'sources');
  found.push({ things: 'sources', path: sourcesPath, names: metadata.sources.map((source) => source.name) });
  metadata.sources.forEach((source, s) => {
    const sourcePath = appendPath(sourcesPath, s);
    const tablesPath = appendPath(sourcePath, 'tables');
    found.push({ things: 'tables', path: tablesPath, names: source.tables.map((table) => displayName(table.table)) });
    found.push({ things: 'functions', path: appendPath(sourcePath, 'functions'), names: (source.functions ?? []).map((fn) => displayName(fn.function)) });
    // A trigger's name is global: it names the database trigger and the event stream.
    found.push({ things: 'event triggers', path: tablesPath, names: source.tables.flatMap((table) => (table.event_triggers ?? []).map((trigger) => trigger.name)) });
    source.tables.forEach((table, t) => {
      const tablePath = appendPath(tablesPath, t);
      const at = (key: string) => appendPath(tablePath, key);
      const objects = (table.object_relationships ?? []).map((relationship) => relationship.name);
      const arrays = (table.array_relationships ?? []).map((relationship) => relationship.name);
      found.push(
        { things: 'object relationships', path: at('object_relationships'), names: objects },
        { things: 'array relationships', path: at('array_relationships'), names: arrays },
        // One GraphQL field per name: an object and an array relationship may not share one.
        { things: 'relationships', path: tablePath, names: [...objects, ...arrays] },
        { things: 'computed fields', path: at('computed_fields'), names: (table.computed_fields ?? []).map((field) => field.name) },
        { things: 'insert permissions', path: at('insert_permissions'), names: roles(table.insert_permissions) },
        { things: 'select permissions', path: at('select_permissions'), names: roles(table.select_permissions) },
        { things: 'update permissions', path: at('update_permissions'), names: roles(table.update_permissions) },
        { things: 'delete permissions', path: at('delete_permissions'), names: roles(table.delete_permissions) },
      );
    });
    (source.functions ?? []).forEach((fn, f) => {
      found.push({ things: 'function permissions', path: appendPath(appendPath(appendPath(sourcePath, 'functions'), f), 'permissions'), names: roles(fn.permissions) });
    });
  });
  found.push({ things: 'query collections', path: appendPath(root, 'query_collections'), names: (metadata.query_collections ?? []).map((entry) => entry.name) });
  found.push({ things: 'allowlist entries', path: appendPath(root, 'allowlist'), names: (metadata.allowlist ?? []).map((entry) => entry.collection) });
  const remotesPath = appendPath(root, 'remote_schemas');
  const remotes = metadata.remote_schemas ?? [];
  found.push({ things: 'remote schemas', path: remotesPath, names: remotes.map((remote) => remote.name) });
  remotes.forEach((remote, r) => {
    found.push({ things: 'remote schema permissions', path: appendPath(appendPath(remotesPath, r), 'permissions'), names: roles(remote.permissions) });
  });
  return found;
}

function roles(entries: readonly { role: string }[] | undefined): string[] {
  return (entries ?? []).map((entry) => entry.role);
}

/** The names that occur more than once, each once, in order of first repeat. */
export function repeatedNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of names) (seen.has(name) ? repeated : seen).add(name);
  return [...repeated];
}
