import {
  getNamedType,
  GraphQLSchema,
  specifiedDirectives,
  __Schema,
  type GraphQLAbstractType,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchemaConfig,
  type GraphQLType,
} from 'graphql';
import { referencedTypes, schemaOfAllTypes } from './schema-types.js';

/**
 * A role's schema whose types are made only as requests reach them. At thousands of tables
 * a role's whole schema is hundreds of thousands of types (seconds and hundreds of MiB per
 * role), while a request names a few of them: its root fields, whose types graphql-js
 * resolves field by field as it validates, and the types its variables and fragments name,
 * looked up here by a breadth-first walk from the roots that stops once the name is found
 * (the first level of that walk holds the root fields' argument types, so `Int` or
 * `author_bool_exp` cost the roots alone). The whole schema (`schemaOfAllTypes`) is built
 * only for what needs every type: introspection of the type list, abstract types, merging
 * with remote schemas. The walk and the whole schema start from the same roots, so a name
 * the walk finds is a type of the whole schema and one it does not find is not.
 */
export class LazySchema extends GraphQLSchema {
  readonly #config: GraphQLSchemaConfig;
  #whole: GraphQLSchema | null = null;
  /** Types the walk has met, by name; those from `#next` on still have their references to walk. */
  readonly #met = new Map<string, GraphQLNamedType>();
  readonly #queue: GraphQLNamedType[] = [];
  #next = 0;

  constructor(config: GraphQLSchemaConfig) {
    // The base class is given no roots, so that it collects nothing; every method that reads types is answered below.
    super({ directives: config.directives, description: config.description, extensions: config.extensions, assumeValid: true });
    this.#config = config;
    for (const root of [config.query, config.mutation, config.subscription]) if (root != null) this.#meet(root);
    for (const directive of config.directives ?? specifiedDirectives) for (const arg of directive.args) this.#meet(arg.type);
    this.#meet(__Schema);
  }

  override getQueryType(): GraphQLObjectType | undefined {
    return this.#config.query ?? undefined;
  }

  override getMutationType(): GraphQLObjectType | undefined {
    return this.#config.mutation ?? undefined;
  }

  override getSubscriptionType(): GraphQLObjectType | undefined {
    return this.#config.subscription ?? undefined;
  }

  override getType(name: string): GraphQLNamedType | undefined {
    if (this.#whole !== null) return this.#whole.getType(name);
    while (!this.#met.has(name) && this.#next < this.#queue.length) {
      for (const type of referencedTypes(this.#queue[this.#next++]!)) this.#meet(type);
    }
    return this.#met.get(name);
  }

  override getTypeMap(): ReturnType<GraphQLSchema['getTypeMap']> {
    return this.#all().getTypeMap();
  }

  override getPossibleTypes(abstractType: GraphQLAbstractType): readonly GraphQLObjectType[] {
    return this.#all().getPossibleTypes(abstractType);
  }

  override getImplementations(interfaceType: GraphQLInterfaceType): { objects: readonly GraphQLObjectType[]; interfaces: readonly GraphQLInterfaceType[] } {
    return this.#all().getImplementations(interfaceType);
  }

  override isSubType(abstractType: GraphQLAbstractType, maybeSubType: GraphQLObjectType | GraphQLInterfaceType): boolean {
    return this.#all().isSubType(abstractType, maybeSubType);
  }

  override toConfig(): ReturnType<GraphQLSchema['toConfig']> {
    return this.#all().toConfig();
  }

  #all(): GraphQLSchema {
    this.#whole ??= schemaOfAllTypes(this.#config);
    return this.#whole;
  }

  #meet(type: GraphQLType): void {
    const named = getNamedType(type);
    if (this.#met.has(named.name)) return;
    this.#met.set(named.name, named);
    this.#queue.push(named);
  }
}
