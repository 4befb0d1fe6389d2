import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { Kvm, type KV, type KvOptions } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/** NATS server's JSStreamNameExistErr: the name is taken by a stream with another config. */
const STREAM_NAME_EXISTS = 10058;

export type StreamSpec = Partial<StreamConfig> & { name: string; subjects: string[] };

/**
 * Creates the stream, or brings an existing one to `spec`; safe to call from every
 * instance at every start (two instances racing end with the same stream).
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<StreamInfo> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(spec.name);
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || error.code !== JetStreamApiCodes.StreamNotFound) throw error;
    try {
      return await jsm.streams.add(spec);
    } catch (raced) {
      // Another instance created it between our look-up and our add: fall through to update.
      if (!(raced instanceof JetStreamApiError) || raced.code !== STREAM_NAME_EXISTS) throw raced;
    }
  }
  const { name, ...update } = spec;
  return jsm.streams.update(name, update);
}

/** Creates or opens a KV bucket; `Kvm.create` binds to an existing bucket of that name. */
export function ensureKv(nc: NatsConnection, bucket: string, options: Partial<KvOptions> = {}): Promise<KV> {
  return new Kvm(nc).create(bucket, options);
}
