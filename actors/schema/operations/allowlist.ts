import { errors } from '../../../src/errors/errors.js';
import type { AllowlistEntry, AllowlistScope } from '../../../src/metadata/types.js';
import { checkScope } from './collection-rules.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { findCollection } from './query-collections.js';

/**
 * The allowlist (Hasura's QueryCollection.hs and Allowlist.hs, messages and paths as
 * there): which query collections a non-admin operation must come from when the server
 * runs with SERVICE_GRAPHQL_ENABLE_ALLOWLIST, each for every role or for some.
 */
const allowlistOf = (context: OperationContext): AllowlistEntry[] => context.metadata.allowlist ?? [];
const quote = (name: string): string => JSON.stringify(name);
const notInAllowlist = (collection: string): string => `collection ${quote(collection)} doesn't exist in the allowlist`;

/** Scope defaults to global; adding a collection twice is not an error but a message, the scope left as it was. */
export const addCollectionToAllowlist: Operation<{ collection: string; scope?: AllowlistScope }> = {
  type: 'add_collection_to_allowlist',
  argsSchema: 'query/add_collection_to_allowlist',
  async run(args, context) {
    const scope = args.scope === undefined ? { global: true } : checkScope(args.scope, `${context.argsPath}.scope`);
    findCollection(context, args.collection, `${context.argsPath}.collection`);
    if (allowlistOf(context).some((entry) => entry.collection === args.collection)) {
      return {
        response: { message: `collection ${quote(args.collection)} already exists in the allowlist, scope ignored; to change scope, use update_scope_of_collection_in_allowlist` },
      };
    }
    return { response: SUCCESS, metadata: { ...context.metadata, allowlist: [...allowlistOf(context), { collection: args.collection, scope }] } };
  },
};

export const dropCollectionFromAllowlist: Operation<{ collection: string }> = {
  type: 'drop_collection_from_allowlist',
  argsSchema: 'query/drop_collection_from_allowlist',
  async run(args, context) {
    findCollection(context, args.collection, `${context.argsPath}.collection`);
    if (!allowlistOf(context).some((entry) => entry.collection === args.collection)) throw errors.entryNotFound(context.argsPath, notInAllowlist(args.collection));
    return { response: SUCCESS, metadata: { ...context.metadata, allowlist: allowlistOf(context).filter((entry) => entry.collection !== args.collection) } };
  },
};

export const updateScopeOfCollectionInAllowlist: Operation<{ collection: string; scope: AllowlistScope }> = {
  type: 'update_scope_of_collection_in_allowlist',
  argsSchema: 'query/update_scope_of_collection_in_allowlist',
  async run(args, context) {
    const scope = checkScope(args.scope, `${context.argsPath}.scope`);
    findCollection(context, args.collection, `${context.argsPath}.collection`);
    if (!allowlistOf(context).some((entry) => entry.collection === args.collection)) throw errors.entryNotFound(context.argsPath, notInAllowlist(args.collection));
    const allowlist = allowlistOf(context).map((entry) => (entry.collection === args.collection ? { collection: entry.collection, scope } : entry));
    return { response: SUCCESS, metadata: { ...context.metadata, allowlist } };
  },
};

export const ALLOWLIST_OPERATIONS = [addCollectionToAllowlist, dropCollectionFromAllowlist, updateScopeOfCollectionInAllowlist] as const;
