/**
 * Lays a compiled statement out over lines for the golden `.sql` files, so a compiler
 * change reads as a diff: each `(select` opens an indented block and its clauses start
 * lines. Only whitespace changes; the test compares formatted text with formatted text.
 */
const CLAUSES = [' from ', ' where ', ' order by ', ' limit ', ' offset '];

export function formatSql(sql: string): string {
  let out = '';
  const blocks: boolean[] = [];
  let depth = 0;
  let index = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  while (index < sql.length) {
    const char = sql[index]!;
    if (char === "'" || char === '"') {
      let end = index + 1;
      while (end < sql.length && !(sql[end] === char && sql[end + 1] !== char)) end += sql[end] === char ? 2 : 1;
      out += sql.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    if (char === '(') {
      const opensSelect = sql.startsWith('(select ', index);
      blocks.push(opensSelect);
      if (opensSelect) depth += 1;
      out += opensSelect ? `(${newline()}` : '(';
      index += 1;
      continue;
    }
    if (char === ')') {
      if (blocks.pop() === true) {
        depth -= 1;
        out += `${newline()})`;
      } else out += ')';
      index += 1;
      continue;
    }
    const clause = CLAUSES.find((candidate) => sql.startsWith(candidate, index));
    if (clause !== undefined && (blocks.length === 0 || blocks[blocks.length - 1] === true)) {
      out += `${newline()}${clause.trimStart()}`;
      index += clause.length;
      continue;
    }
    out += char;
    index += 1;
  }
  return `${out}\n`;
}
