import { errors } from '../../../src/errors/errors.js';
import type { Metadata, QueryCollectionEntry } from '../../../src/metadata/types.js';
import { checkQueryNames, checkQueryText, checkQueryTexts, collectionMissing } from './collection-rules.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';

/**
 * Query collections (Hasura's QueryCollection.hs, with its messages and paths): named
 * GraphQL documents that the allowlist admits. They change no schema, so every operation
 * only edits the metadata.
 */
interface QueryArgs {
  collection_name: string;
  query_name: string;
}

const collectionsOf = (metadata: Metadata): QueryCollectionEntry[] => metadata.query_collections ?? [];
const quote = (name: string): string => JSON.stringify(name);

/** The collection named `name`, or not-exists at `path`. */
export function findCollection(context: OperationContext, name: string, path: string): QueryCollectionEntry {
  const entry = collectionsOf(context.metadata).find((collection) => collection.name === name);
  if (entry === undefined) throw errors.notExists(path, collectionMissing(name));
  return entry;
}

function withCollection(metadata: Metadata, name: string, change: (entry: QueryCollectionEntry) => QueryCollectionEntry): Metadata {
  return { ...metadata, query_collections: collectionsOf(metadata).map((entry) => (entry.name === name ? change(entry) : entry)) };
}

export const createQueryCollection: Operation<QueryCollectionEntry> = {
  type: 'create_query_collection',
  argsSchema: 'query/create_query_collection',
  async run(args, context) {
    checkQueryTexts(args.definition.queries, `${context.argsPath}.definition`);
    if (collectionsOf(context.metadata).some((entry) => entry.name === args.name)) {
      throw errors.alreadyExists(`${context.argsPath}.name`, `query collection with name ${quote(args.name)} already exists`);
    }
    checkQueryNames(args.definition.queries, `${context.argsPath}.definition`);
    return { response: SUCCESS, metadata: { ...context.metadata, query_collections: [...collectionsOf(context.metadata), args] } };
  },
};

/** Hasura refuses to drop an allowlisted collection unless `cascade` drops its entry too. */
export const dropQueryCollection: Operation<{ collection: string; cascade: boolean }> = {
  type: 'drop_query_collection',
  argsSchema: 'query/drop_query_collection',
  async run(args, context) {
    const path = `${context.argsPath}.collection`;
    findCollection(context, args.collection, path);
    const allowlist = context.metadata.allowlist ?? [];
    const listed = allowlist.some((entry) => entry.collection === args.collection);
    if (listed && !args.cascade) {
      throw errors.dependencyError(
        path,
        `query collection with name ${quote(args.collection)} is present in the allowlist; cannot proceed to drop. please use cascade to confirm you wish to drop it from the allowlist as well`,
      );
    }
    const metadata: Metadata = {
      ...context.metadata,
      query_collections: collectionsOf(context.metadata).filter((entry) => entry.name !== args.collection),
      allowlist: allowlist.filter((entry) => entry.collection !== args.collection),
    };
    return { response: SUCCESS, metadata };
  },
};

export const addQueryToCollection: Operation<QueryArgs & { query: string }> = {
  type: 'add_query_to_collection',
  argsSchema: 'query/add_query_to_collection',
  async run(args, context) {
    checkQueryText(args.query, `${context.argsPath}.query`);
    const entry = findCollection(context, args.collection_name, context.argsPath);
    if (entry.definition.queries.some((query) => query.name === args.query_name)) {
      throw errors.alreadyExists(context.argsPath, `query with name ${quote(args.query_name)} already exists in collection ${quote(args.collection_name)}`);
    }
    const metadata = withCollection(context.metadata, entry.name, (collection) => ({
      ...collection,
      definition: { queries: [...collection.definition.queries, { name: args.query_name, query: args.query }] },
    }));
    return { response: SUCCESS, metadata };
  },
};

export const dropQueryFromCollection: Operation<QueryArgs> = {
  type: 'drop_query_from_collection',
  argsSchema: 'query/drop_query_from_collection',
  async run(args, context) {
    const entry = findCollection(context, args.collection_name, context.argsPath);
    if (!entry.definition.queries.some((query) => query.name === args.query_name)) {
      throw errors.entryNotFound(context.argsPath, `query with name ${quote(args.query_name)} not found in collection ${quote(args.collection_name)}`);
    }
    const metadata = withCollection(context.metadata, entry.name, (collection) => ({
      ...collection,
      definition: { queries: collection.definition.queries.filter((query) => query.name !== args.query_name) },
    }));
    return { response: SUCCESS, metadata };
  },
};

export const QUERY_COLLECTION_OPERATIONS = [createQueryCollection, dropQueryCollection, addQueryToCollection, dropQueryFromCollection] as const;
