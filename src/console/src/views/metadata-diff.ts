import { functionsOf, tableKey, tablesOf, type Metadata } from '../api/metadata';

export interface DiffLine {
  kind: string;
  name: string;
  change: 'added' | 'removed' | 'changed';
}

function compare(kind: string, before: Map<string, unknown>, after: Map<string, unknown>): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const [name, value] of after) {
    if (!before.has(name)) lines.push({ kind, name, change: 'added' });
    else if (JSON.stringify(before.get(name)) !== JSON.stringify(value)) lines.push({ kind, name, change: 'changed' });
  }
  for (const name of before.keys()) if (!after.has(name)) lines.push({ kind, name, change: 'removed' });
  return lines;
}

/** What replacing `current` by `next` would add, remove or change, object by object. */
export function diffMetadata(current: Metadata, next: Metadata): DiffLine[] {
  const sections: [string, (metadata: Metadata) => Map<string, unknown>][] = [
    ['table', (metadata) => new Map(tablesOf(metadata).map((table) => [tableKey(table.table), table]))],
    ['function', (metadata) => new Map(functionsOf(metadata).map((fn) => [tableKey(fn.function), fn]))],
    ['remote schema', (metadata) => new Map((metadata.remote_schemas ?? []).map((schema) => [schema.name, schema]))],
  ];
  const lines = sections.flatMap(([kind, pick]) => compare(kind, pick(current), pick(next)));
  const otherKeys = new Set([...Object.keys(current), ...Object.keys(next)].filter((key) => !['version', 'sources', 'remote_schemas'].includes(key)));
  for (const key of otherKeys) {
    if (JSON.stringify(current[key]) !== JSON.stringify(next[key])) lines.push({ kind: 'section', name: key, change: current[key] === undefined ? 'added' : next[key] === undefined ? 'removed' : 'changed' });
  }
  return lines;
}
