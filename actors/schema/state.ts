import type { Metadata } from '../../src/metadata/types.js';
import type { Catalog } from '../../src/pg/catalog.js';
import type { ConsistencyReport } from './consistency/check.js';
import { buildGraphqlEngine, type GraphqlEngine, type GraphqlEngineOptions } from './execution/engine.js';

/**
 * What one schema actor instance serves: a metadata version, the catalog it was checked
 * against, the consistency report and the GraphQL engine built from the consistent part.
 * Immutable: a change builds a new state and swaps it in.
 */
export interface SchemaState {
  readonly resourceVersion: number;
  readonly metadata: Metadata;
  readonly catalog: Catalog;
  readonly report: ConsistencyReport;
  readonly graphql: GraphqlEngine;
}

export function buildState(resourceVersion: number, metadata: Metadata, catalog: Catalog, report: ConsistencyReport, options?: GraphqlEngineOptions): SchemaState {
  return { resourceVersion, metadata, catalog, report, graphql: buildGraphqlEngine(report.consistent, catalog, { ...options, resourceVersion, enumRows: report.enumRows }) };
}
