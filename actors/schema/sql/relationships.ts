import type { RelationshipModel } from '../models/table-model.js';
import { and, columnRef } from './sql-text.js';

/** The condition tying rows of a relationship's related table (`childAlias`) to the row it belongs to. */
export function joinCondition(relationship: RelationshipModel, parentAlias: string, childAlias: string): string {
  return and(relationship.mapping.map(([parentColumn, childColumn]) => `${columnRef(childAlias, childColumn)} = ${columnRef(parentAlias, parentColumn)}`));
}
