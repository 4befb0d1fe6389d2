import { ensureDebianPackage } from './debian-packages.js';
import { createTestDatabase, type TestDatabase } from './database.js';

/**
 * A fresh database with PostGIS (`postgis`, `postgis_raster`) for the tests of the spatial
 * operators. The run's embedded PostgreSQL has no PostGIS, so these databases live on the
 * machine's PostgreSQL 15: SERVICE_GRAPHQL_TEST_POSTGIS_URL (an admin URL of a server with
 * PostGIS available) if set, else the local server at 127.0.0.1:5432. Debian's
 * `postgresql-15-postgis-3` is installed first where it is missing. The extensions are
 * created by the test, as a user would: the engine installs nothing.
 */
export const POSTGIS_ADMIN_URL = process.env.SERVICE_GRAPHQL_TEST_POSTGIS_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export async function createPostgisDatabase(schema = 'public'): Promise<TestDatabase> {
  if (process.env.SERVICE_GRAPHQL_TEST_POSTGIS_URL === undefined || process.env.SERVICE_GRAPHQL_TEST_POSTGIS_URL === '') {
    ensureDebianPackage({ name: 'postgresql-15-postgis-3', installs: '/usr/share/postgresql/15/extension/postgis.control' });
  }
  const database = await createTestDatabase(POSTGIS_ADMIN_URL);
  try {
    await database.sql(`create schema if not exists "${schema}"; create extension postgis schema "${schema}"; create extension postgis_raster schema "${schema}"`);
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}
