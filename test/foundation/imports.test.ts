import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crossActorImports, importLoops, readImportGraph, upwardImports } from './import-graph.js';

/**
 * ARCHITECTURE: actors share nothing but messages (no actor imports another actor's
 * folder; what two actors share lives in src/), and inside an actor layers point one way.
 * In the schema actor: models (what a role may see and do) -> the GraphQL schema -> the
 * SQL compiler -> execution.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const graph = readImportGraph(root, ['src', 'actors']);
const SCHEMA_LAYERS = ['actors/schema/models', 'actors/schema/graphql', 'actors/schema/sql', 'actors/schema/execution'];

describe('the import graph of the engine', () => {
  it('has no import loops', () => {
    expect(importLoops(graph)).toEqual([]);
  });

  it('has no imports from one actor folder into another', () => {
    expect(crossActorImports(graph)).toEqual([]);
  });

  it("has the schema actor's layers pointing one way", () => {
    expect(upwardImports(graph, SCHEMA_LAYERS)).toEqual([]);
  });

  it('keeps src/ free of actor folders but for the process that starts them', () => {
    const reaching = [...graph].flatMap(([file, targets]) => (file.startsWith('src/') && file !== 'src/engine.ts' ? targets.filter((target) => target.startsWith('actors/')).map((target) => `${file} -> ${target}`) : []));
    expect(reaching).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const sample = new Map([
    ['actors/a/x.ts', ['actors/a/y.ts']],
    ['actors/a/y.ts', ['actors/a/z.ts', 'src/shared.ts']],
    ['actors/a/z.ts', ['actors/a/x.ts', 'actors/b/w.ts']],
    ['actors/b/w.ts', []],
    ['actors/b/self.ts', ['actors/b/self.ts']],
    ['src/shared.ts', []],
  ]);

  it('find a loop of three files and a file importing itself', () => {
    expect(importLoops(sample)).toEqual([['actors/a/x.ts', 'actors/a/y.ts', 'actors/a/z.ts'], ['actors/b/self.ts']]);
  });

  it('find an import across actor folders', () => {
    expect(crossActorImports(sample)).toEqual(['actors/a/z.ts -> actors/b/w.ts']);
  });

  it('find an import up the layers', () => {
    expect(upwardImports(new Map([['l/low/a.ts', ['l/high/b.ts']], ['l/high/b.ts', ['l/low/a.ts']]]), ['l/low', 'l/high'])).toEqual(['l/low/a.ts -> l/high/b.ts']);
  });
});
