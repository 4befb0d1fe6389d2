import { Kind, parse, print, visit, type ArgumentNode, type DocumentNode, type ObjectFieldNode, type SelectionNode } from 'graphql';
import type { Metadata } from '../../../src/metadata/types.js';

/**
 * The operations the allowlist admits, per role (Hasura's `InlinedAllowlist`): the
 * documents of the collections scoped globally, and per role those scoped to it. A
 * document is kept and compared in its normal form (`normalizedDocument`), so a request
 * matches a listed query whatever its whitespace, commas and comments.
 */
export class AllowList {
  readonly #global: ReadonlySet<string>;
  readonly #perRole: ReadonlyMap<string, ReadonlySet<string>>;

  private constructor(global: ReadonlySet<string>, perRole: ReadonlyMap<string, ReadonlySet<string>>) {
    this.#global = global;
    this.#perRole = perRole;
  }

  static from(metadata: Metadata): AllowList {
    const documents = new Map<string, string[]>();
    for (const collection of metadata.query_collections ?? []) {
      documents.set(collection.name, collection.definition.queries.flatMap((listed) => normalizedText(listed.query) ?? []));
    }
    const global = new Set<string>();
    const perRole = new Map<string, Set<string>>();
    for (const entry of metadata.allowlist ?? []) {
      const listed = documents.get(entry.collection) ?? [];
      const targets = entry.scope === undefined || entry.scope.global ? [global] : (entry.scope.roles ?? []).map((role) => roleSet(perRole, role));
      for (const target of targets) for (const document of listed) target.add(document);
    }
    return new AllowList(global, perRole);
  }

  /** Whether `role` may run the document whose normal form is `normalized`. */
  allows(role: string, normalized: string): boolean {
    return this.#global.has(normalized) || this.#perRole.get(role)?.has(normalized) === true;
  }
}

/** The normal form of a document's text, or null when it does not parse (and so matches nothing). */
export function normalizedText(query: string): string | null {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return null;
  }
  return normalizedDocument(document);
}

function roleSet(perRole: Map<string, Set<string>>, role: string): Set<string> {
  let set = perRole.get(role);
  if (set === undefined) perRole.set(role, (set = new Set()));
  return set;
}

/**
 * Hasura's `normalizeQuery` and AST equality as one printed text: whitespace, commas and
 * comments are gone (print), arguments and input object fields are compared as the
 * unordered maps Hasura parses them into, a block string equals the plain string of the
 * same value, and `__typename` fields are dropped from operations, fragments and fields,
 * but not inside inline fragments, which Hasura's normalisation leaves whole. Unlike
 * Hasura's AST, `{ a }` and `query { a }` print alike, so they match each other.
 */
export function normalizedDocument(document: DocumentNode): string {
  const canonical = visit(document, {
    Field: (node) => ({ ...node, arguments: sortByName(node.arguments) }),
    Directive: (node) => ({ ...node, arguments: sortByName(node.arguments) }),
    ObjectValue: (node) => ({ ...node, fields: sortByName(node.fields) }),
    StringValue: (node) => ({ ...node, block: false }),
  });
  const definitions = canonical.definitions.map((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION
      ? { ...definition, selectionSet: { ...definition.selectionSet, selections: withoutTypename(definition.selectionSet.selections) } }
      : definition,
  );
  return print({ ...canonical, definitions });
}

function withoutTypename(selections: readonly SelectionNode[]): SelectionNode[] {
  return selections.flatMap((selection): SelectionNode[] => {
    if (selection.kind !== Kind.FIELD) return [selection];
    if (selection.name.value === '__typename') return [];
    if (selection.selectionSet === undefined) return [selection];
    return [{ ...selection, selectionSet: { ...selection.selectionSet, selections: withoutTypename(selection.selectionSet.selections) } }];
  });
}

function sortByName<T extends ArgumentNode | ObjectFieldNode>(nodes: readonly T[] | undefined): T[] | undefined {
  return nodes === undefined ? undefined : [...nodes].sort((a, b) => (a.name.value < b.name.value ? -1 : a.name.value > b.name.value ? 1 : 0));
}
