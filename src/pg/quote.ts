/**
 * The one place identifiers enter SQL text (ARCHITECTURE decision 5). Values never do:
 * they are always parameters.
 */
export function quoteIdent(name: string): string {
  if (name.includes('\u0000')) throw new Error('identifier contains a NUL character');
  return `"${name.replace(/"/g, '""')}"`;
}

export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}
