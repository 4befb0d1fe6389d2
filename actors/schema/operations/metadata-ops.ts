import { errors } from '../../../src/errors/errors.js';
import { checkApiLimits } from '../../../src/metadata/api-limits.js';
import { refuseDuplicateDeclarations } from '../../../src/metadata/duplicates.js';
import { normalizeMetadata } from '../../../src/metadata/normalize.js';
import { canonicalRelationshipsIn } from '../../../src/metadata/foreign-key-forms.js';
import { fromVersion2, isVersion2 } from '../../../src/metadata/version2.js';
import { DEFAULT_SOURCE, emptyMetadata, type Metadata } from '../../../src/metadata/types.js';
import type { InconsistentObject } from '../consistency/inconsistency.js';
import { checkCollectionsAndAllowlist } from './collection-rules.js';
import { syncEventCapture } from './event-triggers.js';
import { SUCCESS, type Operation, type OperationContext } from './operation.js';
import { refreshRemoteSnapshots, remotesToIntrospect, remotesToReload } from './remote-schemas.js';

type Empty = Record<string, never>;

/** Hasura's consistency report: `inconsistent_objects` only when there are any. */
function consistencyReport(inconsistencies: readonly InconsistentObject[]): Record<string, unknown> {
  return inconsistencies.length === 0
    ? { is_consistent: true }
    : { is_consistent: false, inconsistent_objects: inconsistencies };
}

function checkReplacement(metadata: Metadata, context: OperationContext): Metadata {
  metadata.sources.forEach((source, index) => {
    if (source.name !== DEFAULT_SOURCE) {
      throw errors.notSupported(`${context.argsPath}.sources[${index}].name`, `only the source named "${DEFAULT_SOURCE}" (the engine's own database) is supported; got ${JSON.stringify(source.name)}`);
    }
  });
  checkApiLimits(metadata.api_limits, `${context.argsPath}.api_limits`);
  if (metadata.sources.length === 0) return { ...metadata, sources: emptyMetadata().sources };
  return metadata;
}

export const exportMetadata: Operation<Empty> = {
  type: 'export_metadata',
  readOnly: true,
  argsSchema: 'query/export_metadata',
  async run(_args, context) {
    return { response: context.metadata };
  },
};

/** `/v1/metadata`-style version 2: the metadata with the resource_version it was read at. */
export const exportMetadataV2: Operation<Empty> = {
  type: 'export_metadata',
  version: 2,
  readOnly: true,
  argsSchema: 'query/export_metadata',
  async run(_args, context) {
    return { response: { resource_version: context.resourceVersion, metadata: context.metadata } };
  },
};

const upgradeMetadata = (value: unknown): unknown => canonicalRelationshipsIn(isVersion2(value) ? fromVersion2(value) : value);

export const replaceMetadata: Operation<Metadata> = {
  type: 'replace_metadata',
  argsSchema: 'query/replace_metadata',
  upgradeArgs: upgradeMetadata,
  async run(args, context) {
    refuseDuplicateDeclarations(args, context.argsPath);
    const metadata = checkReplacement(args, context);
    checkCollectionsAndAllowlist(metadata, context.argsPath);
    await refreshRemoteSnapshots(context, remotesToIntrospect(context, metadata));
    await syncEventCapture(context, metadata);
    return { response: SUCCESS, metadata, consistency: 'none-at-all' };
  },
};

export const replaceMetadataV2: Operation<{ allow_inconsistent_metadata?: boolean; metadata: Metadata }> = {
  type: 'replace_metadata',
  version: 2,
  argsSchema: 'query/replace_metadata.v2',
  upgradeArgs: (args) =>
    typeof args === 'object' && args !== null && 'metadata' in args ? { ...args, metadata: upgradeMetadata(args.metadata) } : args,
  async run(args, context) {
    const metadataPath = `${context.argsPath}.metadata`;
    refuseDuplicateDeclarations(args.metadata, metadataPath);
    checkCollectionsAndAllowlist(args.metadata, metadataPath);
    const metadata = normalizeMetadata(checkReplacement(args.metadata, { ...context, argsPath: metadataPath }));
    await refreshRemoteSnapshots(context, remotesToIntrospect(context, metadata));
    await syncEventCapture(context, metadata);
    const report = await context.check(metadata, await context.reloadCatalog());
    return {
      response: consistencyReport(report.inconsistencies),
      metadata,
      consistency: args.allow_inconsistent_metadata === true ? 'allow' : 'none-at-all',
    };
  },
};

export const clearMetadata: Operation<Empty> = {
  type: 'clear_metadata',
  argsSchema: 'query/clear_metadata',
  async run(_args, context) {
    await syncEventCapture(context, emptyMetadata());
    return { response: SUCCESS, metadata: emptyMetadata(), consistency: 'allow' };
  },
};

export const reloadMetadata: Operation<{ reload_remote_schemas?: boolean | string[]; reload_sources?: boolean | string[] }> = {
  type: 'reload_metadata',
  argsSchema: 'query/reload_metadata',
  async run(args, context) {
    const remotes = remotesToReload(context, args.reload_remote_schemas);
    await refreshRemoteSnapshots(context, remotes);
    const catalog = await context.reloadCatalog();
    const report = await context.check(context.metadata, catalog);
    const response = { message: 'success', ...consistencyReport(report.inconsistencies) };
    // Rewriting the same metadata moves the version on, so every instance re-reads the refreshed remote schemas.
    return remotes.length === 0 ? { response, catalogChanged: true } : { response, metadata: context.metadata, consistency: 'allow' };
  },
};

/** The interface answers a bare JSON array here, not Hasura's object (compat-facts 0). */
export const getInconsistentMetadata: Operation<Empty> = {
  type: 'get_inconsistent_metadata',
  readOnly: true,
  argsSchema: 'query/get_inconsistent_metadata',
  async run(_args, context) {
    return { response: context.inconsistencies };
  },
};

export const dropInconsistentMetadata: Operation<Empty> = {
  type: 'drop_inconsistent_metadata',
  argsSchema: 'query/drop_inconsistent_metadata',
  async run(_args, context) {
    const { consistent } = await context.check(context.metadata, context.catalog);
    return { response: SUCCESS, metadata: consistent, consistency: 'no-new' };
  },
};
