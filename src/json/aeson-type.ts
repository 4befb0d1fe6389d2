/**
 * Aeson's name for a JSON value's type, as Hasura's parse errors print it
 * (`parsing [] failed, expected Array, but encountered Object`).
 */
export function aesonTypeName(value: unknown): string {
  if (value === null) return 'Null';
  if (Array.isArray(value)) return 'Array';
  switch (typeof value) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Object';
  }
}
