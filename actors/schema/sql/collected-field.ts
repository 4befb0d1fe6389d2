import type { FieldNode } from 'graphql';

/** The fields selected under one response key; several when a query repeats a key. */
export interface CollectedField {
  responseKey: string;
  name: string;
  nodes: FieldNode[];
  /** JSON path of the field for error messages (`$.selectionSet.author`). */
  path: string;
}
