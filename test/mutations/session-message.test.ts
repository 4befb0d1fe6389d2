import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Metadata } from '../../src/metadata/types.js';
import { goldenMetadata, setupGraphqlFixture, type GraphqlFixture } from '../graphql/fixture.js';

/**
 * With event triggers in the metadata, every mutation also writes its session into the
 * WAL as a transactional logical decoding message (prefix `service.session`), read by
 * the event trigger capture; without them it does not.
 */
let withTriggers: GraphqlFixture;

function metadataWithTrigger(): Metadata {
  const metadata = goldenMetadata();
  const author = metadata.sources[0]!.tables.find((entry) => entry.table.name === 'author')!;
  author.event_triggers = [{
    name: 'author_changed',
    definition: { enable_manual: false, insert: { columns: '*' } },
    retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
    webhook: 'http://127.0.0.1:1/hook',
  }];
  return metadata;
}

beforeAll(async () => {
  withTriggers = await setupGraphqlFixture({ metadata: metadataWithTrigger() });
});
afterAll(async () => {
  await withTriggers?.close();
});

describe('the session message of a mutation', () => {
  it('is emitted in the transaction that writes, before the write', async () => {
    const { database } = withTriggers;
    await database.sql("select pg_create_logical_replication_slot('session_probe', 'test_decoding')");
    try {
      const run = await withTriggers.run('mutation { insert_author_one(object: {name: "Wal"}) { name } }', { role: 'admin', sessionVariables: { 'X-Service-Trace': 'yes' } });
      expect(run.body).toEqual({ data: { insert_author_one: { name: 'Wal' } } });
      const changes = await database.sql("select data from pg_logical_slot_get_changes('session_probe', null, null)");
      const lines = changes.rows.map((row: { data: string }) => row.data);
      const message = lines.findIndex((line) => line.includes('prefix: service.session'));
      const insert = lines.findIndex((line) => line.startsWith('table public.author: INSERT'));
      expect(message).toBeGreaterThanOrEqual(0);
      expect(message).toBeLessThan(insert);
      expect(lines[message]).toContain('transactional: 1');
      expect(lines[message]).toContain('{"x-service-trace":"yes","x-service-role":"admin"}');
    } finally {
      await database.sql("select pg_drop_replication_slot('session_probe')");
    }
  });

  it('is left out when no event trigger exists', async () => {
    const plain = await setupGraphqlFixture();
    try {
      const run = await plain.run('mutation { insert_author_one(object: {name: "Quiet"}) { name } }', { rollback: true });
      expect(run.statements[0]!.text).not.toContain('pg_logical_emit_message');
    } finally {
      await plain.close();
    }
  });
});
