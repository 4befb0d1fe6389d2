import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  valueFromASTUntyped,
  type ValueNode,
  type GraphQLNamedType,
  type GraphQLNullableType,
} from 'graphql';
import type { ColumnType, EnumReference } from '../models/column-types.js';
import { VALUE_CHECKS } from '../models/extension-values.js';
import { errors } from '../../../src/errors/errors.js';

const BUILT_IN: Record<string, GraphQLScalarType> = { Int: GraphQLInt, Float: GraphQLFloat, String: GraphQLString, Boolean: GraphQLBoolean };

/**
 * Custom scalars (`bigint`, `numeric`, `uuid`, `jsonb`...) accept any JSON value: the
 * value becomes a parameter cast to the column's type, and Postgres is the judge of
 * its text (its complaint is answered as `data-exception`). They are never serialised
 * by graphql-js, since results are built by Postgres.
 */
const customScalars = new Map<string, GraphQLScalarType>();

export function scalarType(name: string): GraphQLScalarType {
  const builtIn = BUILT_IN[name];
  if (builtIn !== undefined) return builtIn;
  let scalar = customScalars.get(name);
  if (scalar === undefined) {
    // Extension types whose values are checked first, as Hasura's parsers do: a bad GeoJSON,
    // label path or raster is refused with `parse-failed` before any SQL runs.
    const check = VALUE_CHECKS[name];
    const parse = (value: unknown): unknown => {
      const problem = check?.(value) ?? null;
      if (problem !== null) throw errors.parseFailed('$', problem);
      return value;
    };
    // Validation reads a literal without the request's variables: one holding `$variables`
    // (`{type: "Point", coordinates: $at}`) is left to PostgreSQL.
    scalar = new GraphQLScalarType({
      name,
      parseValue: parse,
      parseLiteral: (node, variables) => (holdsVariable(node) ? valueFromASTUntyped(node, variables) : parse(valueFromASTUntyped(node, variables))),
    });
    customScalars.set(name, scalar);
  }
  return scalar;
}

function holdsVariable(node: ValueNode): boolean {
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.LIST) return node.values.some(holdsVariable);
  return node.kind === Kind.OBJECT && node.fields.some((field) => holdsVariable(field.value));
}

/**
 * One GraphQL enum per enum table and model build (every role's schema of a metadata
 * version shares it, as a schema may hold one type of a name). Values are their own names,
 * so an enum value reaches SQL as the row's text.
 */
const enumTypes = new WeakMap<EnumReference, GraphQLEnumType>();

function enumType(reference: EnumReference): GraphQLEnumType {
  let type = enumTypes.get(reference);
  if (type === undefined) {
    const values = Object.fromEntries(reference.values.map((value) => [value.name, { value: value.name, description: value.description }]));
    type = new GraphQLEnumType({ name: reference.typeName, values });
    enumTypes.set(reference, type);
  }
  return type;
}

/** The named type of a column's value: its scalar, or its enum when it references an enum table. */
export function columnNamedType(type: ColumnType): GraphQLScalarType | GraphQLEnumType {
  return type.enumOf === undefined ? scalarType(type.scalar) : enumType(type.enumOf);
}

/** A column's output type: its scalar, a list of it for arrays, non-null when the column is. */
export function columnOutputType(type: ColumnType, nullable: boolean): ColumnGraphqlType {
  const scalar = columnNamedType(type);
  const base = type.isArray ? nonNullList(scalar) : scalar;
  return nullable ? base : new GraphQLNonNull(base);
}

/** Scalar-based, so usable both as an output type and as an argument type. */
type ColumnNamedType = GraphQLScalarType | GraphQLEnumType;
type ColumnGraphqlType =
  | ColumnNamedType
  | GraphQLList<GraphQLNonNull<ColumnNamedType>>
  | GraphQLNonNull<ColumnNamedType | GraphQLList<GraphQLNonNull<ColumnNamedType>>>;

/** The types of one role's schema, created once each by name; thunks let them refer to each other. */
export class TypeRegistry {
  private readonly types = new Map<string, GraphQLNamedType>();

  get<T extends GraphQLNamedType>(name: string, create: () => T): T {
    let type = this.types.get(name);
    if (type === undefined) {
      type = create();
      this.types.set(name, type);
    }
    return type as T;
  }
}

const ORDER_BY = new GraphQLEnumType({
  name: 'order_by',
  description: 'column ordering options',
  values: {
    asc: { description: 'in ascending order, nulls last' },
    asc_nulls_first: { description: 'in ascending order, nulls first' },
    asc_nulls_last: { description: 'in ascending order, nulls last' },
    desc: { description: 'in descending order, nulls first' },
    desc_nulls_first: { description: 'in descending order, nulls first' },
    desc_nulls_last: { description: 'in descending order, nulls last' },
  },
});

export function orderByEnum(): GraphQLEnumType {
  return ORDER_BY;
}

export function nonNullList<T extends GraphQLNullableType>(type: T): GraphQLList<GraphQLNonNull<T>> {
  return new GraphQLList(new GraphQLNonNull(type));
}
