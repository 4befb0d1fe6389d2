/** The GraphQL specification's Name: `[_A-Za-z][_0-9A-Za-z]*`. */
export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A name the engine may give a type or field: a GraphQL Name not reserved for introspection (`__`). */
export function isGraphqlName(name: string): boolean {
  return GRAPHQL_NAME.test(name) && !name.startsWith('__');
}
