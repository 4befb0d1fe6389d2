import { Kind, type ArgumentNode, type SelectionSetNode } from 'graphql';
import type { CollectedField } from './collected-field.js';
import { documentInput, type Input } from './input.js';
import type { CompileContext } from './context.js';

// Its own module, so that context.ts can name it without importing this one.
export type { CollectedField } from './collected-field.js';

/**
 * Implements CollectFields of the GraphQL spec (section 6.3.2) for one object type:
 * fragments and inline fragments whose type condition is `typeName` (or an interface every
 * object type of the schema that validation lets it reach implements, see CompileContext) are expanded,
 * `@skip`/`@include` are applied, and fields are grouped by response key in order.
 */
export function collectFields(context: CompileContext, typeName: string, selectionSets: readonly SelectionSetNode[], path: string): CollectedField[] {
  const byKey = new Map<string, CollectedField>();
  const visitedFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (!included(context, selection.directives ?? [], path)) continue;
      if (selection.kind === Kind.FIELD) {
        const responseKey = selection.alias?.value ?? selection.name.value;
        const existing = byKey.get(responseKey);
        if (existing !== undefined) existing.nodes.push(selection);
        else byKey.set(responseKey, { responseKey, name: selection.name.value, nodes: [selection], path: `${path}.selectionSet.${selection.name.value}` });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition?.name.value;
        if (condition === undefined || applies(context, condition, typeName)) visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const fragment = context.fragments.get(name);
        if (visitedFragments.has(name) || fragment === undefined || !applies(context, fragment.typeCondition.name.value, typeName)) continue;
        visitedFragments.add(name);
        visit(fragment.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) visit(selectionSet);
  return [...byKey.values()];
}

function applies(context: CompileContext, condition: string, typeName: string): boolean {
  return condition === typeName || context.interfaces?.has(condition) === true;
}

/** The sub-selections of a collected field, merged across its nodes. */
export function subSelections(field: CollectedField): SelectionSetNode[] {
  return field.nodes.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
}

/** The field's arguments by name; validation made repeated nodes agree, so the first speaks for all. */
export function argumentsOf(field: CollectedField): Map<string, Input> {
  const args = new Map<string, Input>();
  for (const argument of field.nodes[0]!.arguments ?? []) args.set(argument.name.value, documentInput(argument.value, `${field.path}.args.${argument.name.value}`));
  return args;
}

function included(context: CompileContext, directives: readonly { name: { value: string }; arguments?: readonly ArgumentNode[] }[], path: string): boolean {
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const argument = directive.arguments?.find((item) => item.name.value === 'if');
    if (argument === undefined) continue;
    const value = context.reader.boolean(documentInput(argument.value, `${path}.directives.${name}`));
    if (name === 'skip' ? value : !value) return false;
  }
  return true;
}
