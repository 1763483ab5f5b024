/** The JSON type of a value, as error messages name it: null, array, object, string, number, boolean. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
