import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config/options.js';

/** The README's configuration table is the one users read: it must say what the options say. */
describe("the README's configuration table", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const rows = new Map([...readme.matchAll(/^\| `(SERVICE_GRAPHQL_[A-Z_]+)` \| `([^`]+)` \| `([^`]*)` \| (.*) \|$/gm)].map((match) => [match[1]!, { flag: match[2], value: match[3], help: match[4] }]));

  it.each(Object.values(OPTIONS).map((option) => [option.env, option] as const))('lists %s with its flag, default and help', (env, option) => {
    const shown = 'default' in option ? (Array.isArray(option.default) ? option.default.join(',') : String(option.default)) : '—';
    expect(rows.get(env)).toEqual({ flag: option.flag, value: shown, help: option.help });
  });

  it('lists no variable the engine does not read', () => {
    expect([...rows.keys()].filter((env) => !Object.values(OPTIONS).some((option) => option.env === env))).toEqual([]);
  });
});
