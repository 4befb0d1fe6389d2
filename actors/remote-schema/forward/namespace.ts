import { Kind, visit, type FragmentDefinitionNode, type InlineFragmentNode, type OperationDefinitionNode, type SelectionNode, type SelectionSetNode } from 'graphql';

/**
 * The upstream alias of a field selected under the namespace field with response key
 * number `index`; `namespaceMarker(index)` alone marks that the namespace field itself was
 * selected (its directives passed). remote-response.ts reads them back.
 */
export const namespaceMarker = (index: number): string => `_ns${index}`;
export const namespaceAlias = (index: number, key: string): string => `${namespaceMarker(index)}_${key}`;

/**
 * Takes the `root_fields_namespace` field out of an operation already in upstream names
 * (compat-facts 7.1): the remote has no such field, so each selection of it becomes an
 * inline fragment on the remote's root with the field's directives, whose fields are
 * aliased by namespace response key so that `{a: geo {x} b: geo {x}}` stays two answers.
 * Fragments spread at the root or directly under the namespace are inlined (their fields
 * get those aliases); fragments left unused are dropped, as the remote would refuse them.
 */
export function unnestNamespace(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  upstreamRoot: string,
): { operation: OperationDefinitionNode; fragments: FragmentDefinitionNode[]; keys: string[] } {
  const keys: string[] = [];
  const onRoot = (selectionSet: SelectionSetNode, directives: InlineFragmentNode['directives'], selections: readonly SelectionNode[]): InlineFragmentNode => ({
    kind: Kind.INLINE_FRAGMENT,
    typeCondition: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: upstreamRoot } },
    directives,
    selectionSet: { ...selectionSet, selections },
  });
  const inline = (spread: { name: { value: string }; directives?: InlineFragmentNode['directives'] }, rewrite: (set: SelectionSetNode) => SelectionSetNode): InlineFragmentNode => {
    const fragment = fragments.get(spread.name.value)!;
    return { kind: Kind.INLINE_FRAGMENT, typeCondition: fragment.typeCondition, directives: spread.directives, selectionSet: rewrite(fragment.selectionSet) };
  };
  const aliased = (selectionSet: SelectionSetNode, index: number): SelectionSetNode => ({
    ...selectionSet,
    selections: selectionSet.selections.map((selection): SelectionNode => {
      if (selection.kind === Kind.FIELD) return { ...selection, alias: { kind: Kind.NAME, value: namespaceAlias(index, (selection.alias ?? selection.name).value) } };
      if (selection.kind === Kind.INLINE_FRAGMENT) return { ...selection, selectionSet: aliased(selection.selectionSet, index) };
      return inline(selection, (set) => aliased(set, index));
    }),
  });
  const root = (selectionSet: SelectionSetNode): SelectionSetNode => ({
    ...selectionSet,
    selections: selectionSet.selections.map((selection): SelectionNode => {
      if (selection.kind === Kind.INLINE_FRAGMENT) return { ...selection, selectionSet: root(selection.selectionSet) };
      if (selection.kind === Kind.FRAGMENT_SPREAD) return inline(selection, root);
      // Every remote root field of a namespaced remote is its namespace field (routing ensured it).
      const key = (selection.alias ?? selection.name).value;
      let index = keys.indexOf(key);
      if (index < 0) index = keys.push(key) - 1;
      const marker: SelectionNode = { kind: Kind.FIELD, alias: { kind: Kind.NAME, value: namespaceMarker(index) }, name: { kind: Kind.NAME, value: '__typename' } };
      const inner = aliased(selection.selectionSet ?? { kind: Kind.SELECTION_SET, selections: [] }, index);
      return onRoot(inner, selection.directives, [marker, ...inner.selections]);
    }),
  });
  const unnested = { ...operation, selectionSet: root(operation.selectionSet) };
  return { operation: unnested, fragments: usedFragments(unnested, fragments), keys };
}

/** The fragments an operation spreads, directly or through other fragments. */
export function usedFragments(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>): FragmentDefinitionNode[] {
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
    visit(node, {
      FragmentSpread: (spread) => {
        const fragment = fragments.get(spread.name.value);
        if (fragment !== undefined && !used.has(fragment.name.value)) {
          used.set(fragment.name.value, fragment);
          walk(fragment);
        }
      },
    });
  walk(operation);
  return [...used.values()];
}
