/** The verbs of `<p>.functions.<verb>`. */
export const FUNCTIONS_VERBS = {
  describeFunction: 'describe_function',
  describeComputedField: 'describe_computed_field',
} as const;
