import { errors } from '../../../src/errors/errors.js';
import {
  clearMetadata,
  dropInconsistentMetadata,
  exportMetadata,
  exportMetadataV2,
  getInconsistentMetadata,
  reloadMetadata,
  replaceMetadata,
  replaceMetadataV2,
} from './metadata-ops.js';
import { removeApiLimits, setApiLimits } from './api-limits.js';
import { ALLOWLIST_OPERATIONS } from './allowlist.js';
import { addComputedField, dropComputedField } from './computed-fields.js';
import { DATA_API_OPERATIONS } from './data/operations.js';
import { EVENT_TRIGGER_OPERATIONS } from './event-triggers.js';
import { createFunctionPermission, dropFunctionPermission, setFunctionCustomization, trackFunction, trackFunctionV2, untrackFunction } from './functions.js';
import { setGraphqlSchemaIntrospectionOptions } from './introspection-options.js';
import type { Operation } from './operation.js';
import { createSelectPermission, dropSelectPermission } from './permissions.js';
import { createDeletePermission, createInsertPermission, createUpdatePermission, dropDeletePermission, dropInsertPermission, dropUpdatePermission } from './permissions-write.js';
import { QUERY_COLLECTION_OPERATIONS } from './query-collections.js';
import { REMOTE_SCHEMA_OPERATIONS } from './remote-schemas.js';
import { createArrayRelationship, createObjectRelationship, dropRelationship, renameRelationship } from './relationships.js';
import { runSql } from './run-sql.js';
import { addInheritedRole, dropInheritedRole } from './inherited-roles.js';
import { addExistingTableOrView, setTableCustomFields, setTableCustomFieldsV2, setTableCustomization, setTableIsEnum, trackTable, trackTableV2, untrackTable } from './tables.js';

/** Every `/v1/query` operation by `type` (and `version`); `bulk` is the runner's own. */
const OPERATIONS: readonly Operation<never>[] = [
  exportMetadata,
  exportMetadataV2,
  replaceMetadata,
  replaceMetadataV2,
  clearMetadata,
  reloadMetadata,
  getInconsistentMetadata,
  dropInconsistentMetadata,
  trackTable,
  trackTableV2,
  addExistingTableOrView,
  untrackTable,
  setTableCustomization,
  setTableCustomFields,
  setTableCustomFieldsV2,
  setTableIsEnum,
  createObjectRelationship,
  createArrayRelationship,
  dropRelationship,
  renameRelationship,
  createSelectPermission,
  dropSelectPermission,
  createInsertPermission,
  dropInsertPermission,
  createUpdatePermission,
  dropUpdatePermission,
  createDeletePermission,
  dropDeletePermission,
  runSql,
  ...EVENT_TRIGGER_OPERATIONS,
  ...REMOTE_SCHEMA_OPERATIONS,
  trackFunction,
  trackFunctionV2,
  untrackFunction,
  setFunctionCustomization,
  createFunctionPermission,
  dropFunctionPermission,
  addComputedField,
  dropComputedField,
  setApiLimits,
  removeApiLimits,
  ...QUERY_COLLECTION_OPERATIONS,
  ...ALLOWLIST_OPERATIONS,
  setGraphqlSchemaIntrospectionOptions,
  addInheritedRole,
  dropInheritedRole,
  ...DATA_API_OPERATIONS,
] as Operation<never>[];

const byKey = new Map(OPERATIONS.map((operation) => [`${operation.type}@${operation.version ?? 1}`, operation]));
const types = new Set(OPERATIONS.map((operation) => operation.type));

export function findOperation(type: string, version: number | undefined, path: string): Operation<unknown> {
  if (!types.has(type)) throw errors.unknownOperation(`${path}.type`, type);
  const operation = byKey.get(`${type}@${version ?? 1}`);
  if (operation === undefined) throw errors.parseFailed(`${path}.version`, `version ${version} of ${type} is not supported`);
  return operation as Operation<unknown>;
}

export function isOperationType(type: string): boolean {
  return types.has(type);
}
