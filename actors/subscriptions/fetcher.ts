import { createHash } from 'node:crypto';
import type { Pool } from '../../src/pg/pool.js';
import { queryNamed } from '../../src/pg/prepared-statements.js';
import type { Cohort, Poller } from './model.js';

/** One cohort's fetch: its result (and a stream's next cursor), or PostgreSQL's refusal. */
export type CohortResult = { data: string; cursor: string | null } | { error: unknown };

/**
 * The database could not be reached or went away mid-statement (no connection, a restart,
 * too many clients): nothing is wrong with the cohorts, and the fetch is to be tried again.
 */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super('the database is unavailable', { cause });
  }
}

/**
 * Fetches cohorts of one poller with ONE statement (Hasura's multiplexed query): the
 * cohorts' ids and values unnested, each joined laterally to the poller's statement,
 * which reads its values from `"_subs"."vars"`. The results stay PostgreSQL's text.
 * When a batch fails, its cohorts are fetched one by one, so that one cohort's bad value
 * (a cast that fails, a division by zero) is that cohort's error only; when the database
 * is unavailable, the fetch throws DatabaseUnavailable and no cohort is blamed.
 */
export class CohortFetcher {
  readonly #db: Pool;
  readonly #names = new WeakMap<Poller, { name: string; text: string }>();
  statements = 0;

  constructor(db: Pool) {
    this.#db = db;
  }

  async fetch(poller: Poller, cohorts: readonly Cohort[]): Promise<Map<string, CohortResult>> {
    try {
      return await this.#run(poller, cohorts);
    } catch (error) {
      if (error instanceof DatabaseUnavailable) throw error;
      if (cohorts.length === 1) return new Map([[cohorts[0]!.id, { error }]]);
      const results = new Map<string, CohortResult>();
      for (const cohort of cohorts) {
        const [result] = (await this.fetch(poller, [cohort])).values();
        results.set(cohort.id, result!);
      }
      return results;
    }
  }

  async #run(poller: Poller, cohorts: readonly Cohort[]): Promise<Map<string, CohortResult>> {
    const statement = this.#statement(poller);
    const client = await this.#db.connect().catch((error: unknown) => {
      throw new DatabaseUnavailable(error);
    });
    let result;
    try {
      this.statements++;
      result = await queryNamed<{ cohort: string; data: string | null; cursor?: string | null }>(client, {
        name: statement.name,
        text: statement.text,
        values: [cohorts.map((cohort) => cohort.id), cohorts.map((cohort) => JSON.stringify(cohort.values))],
      });
      client.release();
    } catch (error) {
      const unavailable = connectionLost(error);
      client.release(unavailable);
      throw unavailable ? new DatabaseUnavailable(error) : error;
    }
    const results = new Map<string, CohortResult>();
    for (const row of result.rows) results.set(row.cohort, { data: row.data ?? 'null', cursor: row.cursor ?? null });
    return results;
  }

  #statement(poller: Poller): { name: string; text: string } {
    let statement = this.#names.get(poller);
    if (statement === undefined) {
      const text = `select "_subs"."cohort" as "cohort", "_result".* from unnest($1::text[], $2::json[]) as "_subs"("cohort", "vars") left join lateral (${poller.sql}) as "_result" on true`;
      statement = { name: `subs_${createHash('sha1').update(text).digest('hex').slice(0, 40)}`, text };
      this.#names.set(poller, statement);
    }
    return statement;
  }
}

/**
 * Whether a statement failed because its connection did (no SQLSTATE: the socket closed),
 * or PostgreSQL is shutting down, restarting or out of connections (SQLSTATE classes 08
 * and 57P, and 53300), rather than because of the statement.
 */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || code === '53300';
}
