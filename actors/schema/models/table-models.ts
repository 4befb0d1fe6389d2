/** Layers laid over one made map before a build makes a map anew. */
const MAX_LAYERS = 16;

/** What a layer holds: the tables it changed (null: gone) over the tables before. */
interface Layer<T extends { readonly key: string }> {
  base: TableModels<T>;
  changes: ReadonlyMap<string, T | null>;
}

/**
 * The source model's tables by key, in the entries' order. Every metadata operation builds
 * the model again from thousands of entries of which it changed one or two; making a map
 * of 5,000 tables cost 0.5 ms of each build. A build after such a change lays the tables the
 * change touched over the last build's instead: a lookup looks through at most MAX_LAYERS
 * layers, and the map is made only when something iterates the tables (a role's schema,
 * built on its first request) or the layers run deep.
 *
 * A key named by two entries (metadata written by other means) makes the map anew on every
 * build, which then keeps the later entry's model as a Map would.
 */
export class TableModels<T extends { readonly key: string }> implements ReadonlyMap<string, T> {
  /** The models, one per entry in order (null where an entry has none): the map is made from them. */
  readonly #models: readonly (T | null)[];
  #map: Map<string, T> | null;
  #layer: Layer<T> | null;
  #depth: number;
  /** Whether two models share a key: only a made map then tells which one a key has. */
  readonly #keyNamedTwice: boolean;

  private constructor(models: readonly (T | null)[], map: Map<string, T> | null, layer: Layer<T> | null, depth: number, keyNamedTwice: boolean) {
    this.#models = models;
    this.#map = map;
    this.#layer = layer;
    this.#depth = depth;
    this.#keyNamedTwice = keyNamedTwice;
  }

  /** The tables of `models` as a map made now. */
  static of<T extends { readonly key: string }>(models: readonly (T | null)[]): TableModels<T> {
    const map = mapOf(models);
    let count = 0;
    for (const model of models) if (model !== null) count++;
    return new TableModels(models, map, null, 0, map.size !== count);
  }

  /**
   * The tables of `models`, which are these tables' models with `removed` taken out and
   * `added` put in (the span an edit changed), laid over these.
   */
  followedBy(models: readonly (T | null)[], removed: readonly (T | null)[], added: readonly (T | null)[]): TableModels<T> {
    if (this.#keyNamedTwice || this.#depth >= MAX_LAYERS) return TableModels.of(models);
    const changes = new Map<string, T | null>();
    for (const model of removed) if (model !== null) changes.set(model.key, null);
    for (const model of added) {
      if (model === null) continue;
      const change = changes.get(model.key);
      // Added twice, or also kept outside the span: a key named by two entries.
      if (change !== null && (change !== undefined || this.get(model.key) !== undefined)) return TableModels.of(models);
      changes.set(model.key, model);
    }
    return new TableModels(models, null, { base: this, changes }, this.#depth + 1, false);
  }

  get(key: string): T | undefined {
    let at: TableModels<T> = this;
    while (at.#map === null) {
      const layer = at.#layer!;
      const change = layer.changes.get(key);
      if (change !== undefined) return change ?? undefined;
      at = layer.base;
    }
    return at.#map.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get size(): number {
    return this.#made().size;
  }

  forEach(callback: (value: T, key: string, map: ReadonlyMap<string, T>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#made()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[string, T]> {
    return this.#made().entries();
  }

  keys(): MapIterator<string> {
    return this.#made().keys();
  }

  values(): MapIterator<T> {
    return this.#made().values();
  }

  [Symbol.iterator](): MapIterator<[string, T]> {
    return this.#made().entries();
  }

  /** The map, made on first need; the layers below are then let go. */
  #made(): Map<string, T> {
    if (this.#map === null) {
      this.#map = mapOf(this.#models);
      this.#layer = null;
      this.#depth = 0;
    }
    return this.#map;
  }
}

function mapOf<T extends { readonly key: string }>(models: readonly (T | null)[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const model of models) if (model !== null) map.set(model.key, model);
  return map;
}
