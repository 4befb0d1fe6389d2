import { GraphQLBoolean, GraphQLFloat, GraphQLInputObjectType, GraphQLInt, GraphQLNonNull, type GraphQLInputFieldConfigMap } from 'graphql';
import { siblingType, type ColumnType } from '../models/column-types.js';
import { CAST_TARGETS, OBJECT_OPERAND_TYPE_NAMES, type ObjectOperand } from '../models/extension-operators.js';
import { scalarType, type TypeRegistry } from './type-registry.js';

/**
 * The input objects of PostGIS operators, named and shaped as Hasura's:
 * `st_d_within_input {distance: Float!, from: geometry!}`,
 * `st_d_within_geography_input {distance: Float!, from: geography!, use_spheroid: Boolean = true}`,
 * `st_intersects_nband_geom_input {nband: Int!, geommin: geometry!}`,
 * `st_intersects_geom_nband_input {geommin: geometry!, nband: Int}`.
 */
export function objectOperandType(registry: TypeRegistry, type: ColumnType, operand: ObjectOperand): GraphQLInputObjectType {
  const name = OBJECT_OPERAND_TYPE_NAMES[operand];
  return registry.get(name, () => new GraphQLInputObjectType({ name, fields: () => objectOperandFields(type, operand) }));
}

function objectOperandFields(type: ColumnType, operand: ObjectOperand): GraphQLInputFieldConfigMap {
  const geometry = new GraphQLNonNull(scalarType(siblingType(type, 'geometry').scalar));
  switch (operand) {
    case 'd-within':
      return { distance: { type: new GraphQLNonNull(GraphQLFloat) }, from: { type: geometry } };
    case 'd-within-geography':
      return { distance: { type: new GraphQLNonNull(GraphQLFloat) }, from: { type: new GraphQLNonNull(scalarType('geography')) }, use_spheroid: { type: GraphQLBoolean, defaultValue: true } };
    case 'nband-geom':
      return { geommin: { type: geometry }, nband: { type: new GraphQLNonNull(GraphQLInt) } };
    case 'geom-nband':
      return { geommin: { type: geometry }, nband: { type: GraphQLInt } };
  }
}

/** `geometry_cast_exp {geography: geography_comparison_exp}` and `geography_cast_exp {geometry: geometry_comparison_exp}`. */
export function castExpType(registry: TypeRegistry, type: ColumnType, comparisonType: (registry: TypeRegistry, type: ColumnType) => GraphQLInputObjectType): GraphQLInputObjectType {
  const name = `${type.scalar}_cast_exp`;
  return registry.get(name, () => new GraphQLInputObjectType({
    name,
    fields: () => {
      const target = CAST_TARGETS[type.category]!;
      return { [target]: { type: comparisonType(registry, siblingType(type, target)) } };
    },
  }));
}
