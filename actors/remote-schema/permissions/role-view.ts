import {
  buildASTSchema,
  GraphQLError,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  visit,
  type ConstDirectiveNode,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { presetOf, presetValueProblem, PRESET_DIRECTIVE, type Preset } from './preset.js';
import { subsetProblems } from './subset.js';

/** A preset with the upstream type of the argument or input field it fills. */
export interface PresetSpot {
  preset: Preset;
  type: GraphQLInputType;
}

/**
 * What one role may use of one remote schema (interface 2.3): the schema it sees (its
 * SDL with preset arguments and input fields removed, rule 5) and the presets to inject
 * into upstream calls, by `Type.field` for arguments and by input type for input fields.
 * Type names are the upstream's.
 */
export interface RemoteRoleView {
  schema: GraphQLSchema;
  argumentPresets: ReadonlyMap<string, ReadonlyMap<string, PresetSpot>>;
  inputFieldPresets: ReadonlyMap<string, ReadonlyMap<string, PresetSpot>>;
}

export type CompiledPermission = { ok: true; view: RemoteRoleView } | { ok: false; problems: string[] };

interface FoundPreset {
  parent: string;
  /** The field, for an argument; null for an input field. */
  field: string | null;
  name: string;
  directive: ConstDirectiveNode;
}

const isPreset = (directive: ConstDirectiveNode): boolean => directive.name.value === PRESET_DIRECTIVE;

/** Compiles a role's SDL against the upstream schema, or lists why it is refused. */
export function compileRolePermission(upstream: GraphQLSchema, sdl: string): CompiledPermission {
  let document: DocumentNode;
  try {
    document = parse(sdl);
  } catch (error) {
    return { ok: false, problems: [`the schema is not valid GraphQL SDL: ${(error as GraphQLError).message}`] };
  }
  const problems: string[] = [];
  const found: FoundPreset[] = [];
  // Where @preset is written decides what it presets; anywhere else is refused.
  visit(document, {
    DirectiveDefinition: () => null,
    ObjectTypeDefinition: (node) => collectArgumentPresets(node.name.value, node.fields ?? [], found),
    InterfaceTypeDefinition: (node) => collectArgumentPresets(node.name.value, node.fields ?? [], found),
    InputObjectTypeDefinition: (node) => {
      for (const field of node.fields ?? []) {
        const directive = field.directives?.find(isPreset);
        if (directive !== undefined) found.push({ parent: node.name.value, field: null, name: field.name.value, directive });
      }
    },
  });
  let misplaced = false;
  visit(document, {
    DirectiveDefinition: () => null,
    InputValueDefinition: () => false,
    Directive: (node) => {
      if (node.name.value === PRESET_DIRECTIVE) misplaced = true;
    },
  });
  if (misplaced) problems.push('Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION');

  const withoutDirectives = visit(document, {
    DirectiveDefinition: () => null,
    Directive: (node) => (node.name.value === PRESET_DIRECTIVE ? null : undefined),
  });
  let full: GraphQLSchema;
  try {
    full = buildASTSchema(withoutDirectives);
  } catch (error) {
    return { ok: false, problems: [...problems, (error as Error).message] };
  }
  problems.push(...subsetProblems(full, upstream));

  const argumentPresets = new Map<string, Map<string, PresetSpot>>();
  const inputFieldPresets = new Map<string, Map<string, PresetSpot>>();
  for (const spot of found) {
    const preset = presetOf(spot.directive);
    if (typeof preset === 'string') {
      problems.push(preset);
      continue;
    }
    const type = upstreamInputType(upstream, spot);
    if (type === undefined) continue; // the subset check reported it
    if (preset.kind === 'static') {
      const problem = presetValueProblem(preset.value, type);
      if (problem !== null) problems.push(problem);
    }
    const key = spot.field === null ? spot.parent : `${spot.parent}.${spot.field}`;
    const table = spot.field === null ? inputFieldPresets : argumentPresets;
    if (!table.has(key)) table.set(key, new Map());
    table.get(key)!.set(spot.name, { preset, type });
  }
  if (problems.length > 0) return { ok: false, problems };

  // Rule 5: a preset argument or input field is not part of the role's schema.
  const schema = buildASTSchema(removePresetSpots(withoutDirectives, found));
  return { ok: true, view: { schema, argumentPresets, inputFieldPresets } };
}

function collectArgumentPresets(parent: string, fields: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; directives?: readonly ConstDirectiveNode[] }[] }[], found: FoundPreset[]): void {
  for (const field of fields) {
    for (const argument of field.arguments ?? []) {
      const directive = argument.directives?.find(isPreset);
      if (directive !== undefined) found.push({ parent, field: field.name.value, name: argument.name.value, directive });
    }
  }
}

function upstreamInputType(upstream: GraphQLSchema, spot: FoundPreset): GraphQLInputType | undefined {
  const parent = upstream.getType(spot.parent);
  if (spot.field === null) return isInputObjectType(parent) ? parent.getFields()[spot.name]?.type : undefined;
  if (!isObjectType(parent) && !isInterfaceType(parent)) return undefined;
  return parent.getFields()[spot.field]?.args.find((arg) => arg.name === spot.name)?.type;
}

function removePresetSpots(document: DocumentNode, found: FoundPreset[]): DocumentNode {
  const arguments_ = new Set(found.filter((spot) => spot.field !== null).map((spot) => `${spot.parent}.${spot.field}(${spot.name})`));
  const inputFields = new Set(found.filter((spot) => spot.field === null).map((spot) => `${spot.parent}.${spot.name}`));
  const withoutArgs = (parent: string) => (node: { name: { value: string }; arguments?: readonly { name: { value: string } }[] }) => ({
    ...node,
    arguments: node.arguments?.filter((argument) => !arguments_.has(`${parent}.${node.name.value}(${argument.name.value})`)),
  });
  return {
    ...document,
    definitions: document.definitions.map((definition) => {
      if (definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.INTERFACE_TYPE_DEFINITION) {
        return { ...definition, fields: definition.fields?.map(withoutArgs(definition.name.value)) };
      }
      if (definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
        return { ...definition, fields: definition.fields?.filter((field) => !inputFields.has(`${definition.name.value}.${field.name.value}`)) };
      }
      return definition;
    }),
  } as DocumentNode;
}

/** Hasura's `validation-failed` text for a refused role schema (compat-facts 7.3). */
export function roleSchemaFailureMessage(problems: readonly string[]): string {
  if (problems.length === 1) return `validation for the given role-based schema failed because ${problems[0]}`;
  return `validation for the given role-based schema failed for the following reasons:\n${problems.map((problem) => ` • ${problem}\n`).join('')}`;
}
