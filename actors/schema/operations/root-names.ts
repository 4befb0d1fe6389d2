import { errors } from '../../../src/errors/errors.js';
import type { Metadata } from '../../../src/metadata/types.js';
import { nameTaken, type NameOwner } from '../consistency/root-fields.js';
import { remoteRootConflict } from '../consistency/remote-schemas.js';
import type { OperationContext } from './operation.js';

/**
 * Hasura's checkConflictingNode, for an operation that adds or renames a table or
 * function: its names must be free in `metadata`, remote schemas' fields included.
 */
export function checkNamesFree(context: OperationContext, metadata: Metadata, owner: NameOwner): void {
  const taken = nameTaken(metadata, context.catalog, owner) ?? remoteRootConflict(metadata, context.catalog, context.remotes, context.inconsistencies);
  if (taken !== null) throw errors.remoteSchemaConflicts(context.argsPath, taken);
}
