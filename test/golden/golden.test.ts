import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from '../graphql/fixture.js';
import { formatJson } from './format-json.js';
import { formatSql } from './format-sql.js';

/**
 * Golden tests of the SQL compiler. Each folder of `cases/` holds a `query.graphql`, and
 * optionally `request.json` ({variables, operationName, role, sessionVariables}), beside
 * the statement it must compile to (`expected.sql`, with the bound values as comments)
 * and the response it must produce (`result.json`). Every request must run exactly one
 * statement, or the number `request.json` gives as `statements` (a nested insert writes,
 * then reads back); `mutation-*` cases are rolled back. `UPDATE_GOLDEN=1 npx vitest run test/golden` rewrites the expected files;
 * review their diff like code.
 */
const casesDir = fileURLToPath(new URL('./cases/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(casesDir).sort();

let fixture: GraphqlFixture;
beforeAll(async () => {
  fixture = await setupGraphqlFixture();
});
afterAll(async () => {
  await fixture.close();
});

describe('SQL compiler golden cases', () => {
  it.each(cases)('%s', async (name) => {
    const dir = `${casesDir}${name}/`;
    const query = readFileSync(`${dir}query.graphql`, 'utf8');
    const request = existsSync(`${dir}request.json`) ? JSON.parse(readFileSync(`${dir}request.json`, 'utf8')) : {};
    // Mutation cases are rolled back, so that every case sees the same data set.
    const run = await fixture.run(query, { ...request, rollback: name.startsWith('mutation-') });

    expect(run.body.errors, run.text).toBeUndefined();
    expect(run.statements).toHaveLength(request.statements ?? 1);
    const sql = run.statements
      .map((statement) => formatSql(statement.text) + statement.values.map((value, index) => `-- $${index + 1} = ${JSON.stringify(value)}\n`).join(''))
      .join('\n');
    const result = formatJson(run.text);

    if (update) {
      writeFileSync(`${dir}expected.sql`, sql);
      writeFileSync(`${dir}result.json`, result);
    }
    expect(sql).toBe(readFileSync(`${dir}expected.sql`, 'utf8'));
    // Text, not parsed values: key order and number spelling are part of the contract.
    expect(result).toBe(readFileSync(`${dir}result.json`, 'utf8'));
  });
});
