import { pino } from 'pino';
import type { BoundedPool } from '../../src/pg/bounded-client.js';
import { FairShare } from '../../src/pg/fair-share.js';
import type { Pool } from '../../src/pg/pool.js';

/** A pool as the schema actor bounds it (default shares), for tests and benches that run the engine in-process. */
export function testBoundedPool(pool: Pool, connectionString: string, size = 4): BoundedPool {
  return { pool, share: new FairShare(size, { rolePercent: 75, sessionPercent: 50 }), connectionString, log: pino({ level: 'silent' }) };
}
