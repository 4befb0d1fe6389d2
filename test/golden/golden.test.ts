import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Metadata } from '../../src/metadata/types.js';
import { setupGraphqlFixture, type GraphqlFixture } from '../graphql/fixture.js';
import { createPostgisDatabase } from '../harness/postgis-database.js';
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
 *
 * A concept may bring a data set of its own beside the golden one: `fixture.sql` (run
 * after the golden seed) and `metadata.json` (in place of the golden metadata). With
 * `postgis` in `fixture.json` its database is made on the PostGIS server
 * (test/harness/postgis-database.ts). Its refused cases are named `errors-<what>`, and
 * `rollback` in a case's request.json rolls back a mutation outside `mutation/`.
 */
const casesDir = fileURLToPath(new URL('./cases/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const isDirectory = (path: string) => statSync(path).isDirectory();
const cases = readdirSync(casesDir)
  .sort()
  .flatMap((concept) => readdirSync(`${casesDir}${concept}`).sort().filter((name) => isDirectory(`${casesDir}${concept}/${name}`)).map((name) => `${concept}/${name}`));

const fixtures = new Map<string, Promise<GraphqlFixture>>();

/** The fixture of a concept: its own when it brings a data set, else the shared golden one. */
function fixtureFor(concept: string): Promise<GraphqlFixture> {
  const dir = `${casesDir}${concept}/`;
  const own = existsSync(`${dir}fixture.sql`) || existsSync(`${dir}metadata.json`);
  const key = own ? concept : '';
  let fixture = fixtures.get(key);
  if (fixture === undefined) {
    const settings = existsSync(`${dir}fixture.json`) ? JSON.parse(readFileSync(`${dir}fixture.json`, 'utf8')) as { postgis?: boolean } : {};
    fixture = setupGraphqlFixture(!own ? {} : {
      ...(existsSync(`${dir}fixture.sql`) ? { setupSql: readFileSync(`${dir}fixture.sql`, 'utf8') } : {}),
      ...(existsSync(`${dir}metadata.json`) ? { metadata: JSON.parse(readFileSync(`${dir}metadata.json`, 'utf8')) as Metadata } : {}),
      ...(settings.postgis === true ? { createDatabase: () => createPostgisDatabase() } : {}),
    });
    fixtures.set(key, fixture);
  }
  return fixture;
}

afterAll(async () => {
  await Promise.all([...fixtures.values()].map(async (fixture) => (await fixture).close()));
});

describe('SQL compiler golden cases', () => {
  it.each(cases)('%s', async (name) => {
    const dir = `${casesDir}${name}/`;
    const fixture = await fixtureFor(name.split('/')[0]!);
    const query = readFileSync(`${dir}query.graphql`, 'utf8');
    const request = existsSync(`${dir}request.json`) ? JSON.parse(readFileSync(`${dir}request.json`, 'utf8')) : {};
    const refused = name.startsWith('errors/') || name.split('/')[1]!.startsWith('errors-');
    // Mutation cases are rolled back, so that every case sees the same data set.
    const run = await fixture.run(query, { ...request, rollback: name.startsWith('mutation/') || name.startsWith('errors/mutation-') || request.rollback === true });

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
  }, 120_000);
});
