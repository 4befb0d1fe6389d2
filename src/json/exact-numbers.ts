/**
 * Parses JSON keeping every number JavaScript cannot hold exactly as its text: a bigint
 * key of 9007199254740993 must name that row, not 9007199254740992. Numbers that survive
 * the round trip (`String(Number(text)) === text`) stay numbers; the others become
 * strings, which PostgreSQL casts to the column's type exactly. Throws as JSON.parse does.
 */
export function parseJsonExactNumbers(text: string): unknown {
  // JSON.parse first: it refuses what is not JSON (`01`, say), which the rewriting below would quote into JSON.
  const plain: unknown = JSON.parse(text);
  let rewritten = '';
  let start = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      index = endOfString(text, index);
      continue;
    }
    if (char === '-' || (char >= '0' && char <= '9')) {
      const end = endOfNumber(text, index);
      const token = text.slice(index, end);
      if (String(Number(token)) !== token) {
        rewritten += `${text.slice(start, index)}"${token}"`;
        start = end;
      }
      index = end;
      continue;
    }
    index++;
  }
  return start === 0 ? plain : JSON.parse(rewritten + text.slice(start));
}

/** The index after the string that opens at `open` (its closing quote included). */
function endOfString(text: string, open: number): number {
  let index = open + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index + 1;
}

function endOfNumber(text: string, begin: number): number {
  let index = begin + 1;
  while (index < text.length && /[0-9eE.+-]/.test(text[index]!)) index++;
  return index;
}
