/**
 * Re-indents JSON text without parsing it, so the golden `result.json` shows the exact
 * bytes Postgres produced (a bigint beyond 2^53, `5.0` for a numeric) with only the
 * whitespace changed. The layout matches `JSON.stringify(value, null, 2)`.
 */
export function formatJson(text: string): string {
  let out = '';
  let depth = 0;
  let index = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    index += 1;
    if (/\s/.test(char)) continue;
    if (char === '{' || char === '[') {
      const rest = text.slice(index).trimStart();
      if (rest.startsWith(char === '{' ? '}' : ']')) {
        out += char === '{' ? '{}' : '[]';
        index = text.length - rest.length + 1;
        continue;
      }
      depth += 1;
      out += `${char}${newline()}`;
    } else if (char === '}' || char === ']') {
      depth -= 1;
      out += `${newline()}${char}`;
    } else if (char === ',') {
      out += `,${newline()}`;
    } else if (char === ':') {
      out += ': ';
    } else {
      out += char;
    }
  }
  return `${out}\n`;
}
