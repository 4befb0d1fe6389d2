import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The engine's own import graph, read from its TypeScript sources: every relative import
 * (type-only ones included, since they couple modules as much), by file, relative to the
 * project root, with `.js` specifiers mapped back to their `.ts` files.
 */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((match) => relative(root, resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts'))));
    graph.set(relative(root, file), targets);
  }
  return graph;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The import loops of a graph: its strongly connected components of more than one file (Tarjan), or a file importing itself. */
export function importLoops(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) loops.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return loops;
}

/** Imports from one actor's folder into another's: `actors/<a>/...` -> `actors/<b>/...`. */
export function crossActorImports(graph: ImportGraph): string[] {
  const actorOf = (file: string) => /^actors\/([^/]+)\//.exec(file)?.[1];
  const crossings: string[] = [];
  for (const [file, targets] of graph) {
    const from = actorOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = actorOf(target);
      if (to !== undefined && to !== from) crossings.push(`${file} -> ${target}`);
    }
  }
  return crossings;
}

/**
 * Imports that go up a stack of layers: `layers` are folders, lowest first, and a file of
 * one may import from its own and lower ones only.
 */
export function upwardImports(graph: ImportGraph, layers: readonly string[]): string[] {
  const layerOf = (file: string) => layers.findIndex((layer) => file.startsWith(`${layer}/`));
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from < 0) continue;
    for (const target of targets) if (layerOf(target) > from) upward.push(`${file} -> ${target}`);
  }
  return upward;
}
