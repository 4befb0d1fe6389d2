import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupGraphqlFixture, type GraphqlFixture } from '../graphql/fixture.js';
import { formatJson } from './format-json.js';
import { formatSql } from './format-sql.js';

/**
 * Golden tests of the SQL compiler, by GraphQL concept: `cases/<concept>/<case>/` holds a
 * `query.graphql`, and optionally `request.json` ({variables, operationName, role,
 * sessionVariables, statements}), beside the statements it must run (`expected.sql`, with
 * the bound values as comments) and the response it must produce (`result.json`). A case
 * runs exactly one statement, or the number `statements` gives (a nested insert writes,
 * then reads back). `mutation/` cases are rolled back. `errors/` cases (named after the
 * concept they refuse) must answer errors, before any SQL unless `statements` says
 * otherwise, and a refused mutation is rolled back too. `UPDATE_GOLDEN=1 npx vitest run
 * test/golden` rewrites the expected files; review their diff like code.
 */
const casesDir = fileURLToPath(new URL('./cases/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(casesDir)
  .sort()
  .flatMap((concept) => readdirSync(`${casesDir}${concept}`).sort().map((name) => `${concept}/${name}`));

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
    const refused = name.startsWith('errors/');
    // Mutation cases are rolled back, so that every case sees the same data set.
    const run = await fixture.run(query, { ...request, rollback: name.startsWith('mutation/') || name.startsWith('errors/mutation-') });

    if (refused) expect(run.body.errors, run.text).toBeDefined();
    else expect(run.body.errors, run.text).toBeUndefined();
    expect(run.statements).toHaveLength(request.statements ?? (refused ? 0 : 1));
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
