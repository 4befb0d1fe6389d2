import { hostname } from 'node:os';
import { nuid } from '@nats-io/transport-node';
import { authActor } from '../actors/auth/actor.js';
import { remoteSchemaActor } from '../actors/remote-schema/actor.js';
import { schemaActor } from '../actors/schema/actor.js';
import { subscriptionsActor } from '../actors/subscriptions/actor.js';
import { triggersActor } from '../actors/triggers/actor.js';
import type { Actor, RunningActor } from './actor/actor.js';
import { startActor } from './actor/runtime.js';
import { Bus } from './bus/bus.js';
import { tracingSettings } from './tracing/settings.js';
import { startTracing, stopTracing } from './tracing/tracer.js';
import type { Config } from './config/load.js';
import type { ActorName } from './config/options.js';
import { edgeActor, type EdgeAddress } from './edge/actor.js';
import type { Logger } from './log/logger.js';
import { EngineMetrics } from './metrics/engine-metrics.js';

export interface Engine {
  readonly instance: string;
  readonly bus: Bus;
  /** Base URL of the HTTP edge, when this process runs it. */
  readonly url: string | undefined;
  stop(): Promise<void>;
}

/** Actors that need the database; without them a process needs no PostgreSQL. */
export const DATABASE_ACTORS: readonly ActorName[] = ['schema', 'triggers', 'remote-schema', 'subscriptions'];

/**
 * The start-up checks of every actor's settings (the auth settings, say), whichever
 * actors this process runs: a bad setting stops start-up before anything is started or
 * connected, on every process of the cluster alike.
 */
export function checkActorSettings(config: Config): void {
  for (const actor of [authActor, remoteSchemaActor, schemaActor, triggersActor, subscriptionsActor]) actor.checkSettings?.(config);
}

/** A subject-safe id for this process, unique across the cluster. */
function instanceId(): string {
  return `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}-${process.pid}-${nuid.next().slice(-6)}`;
}

/**
 * Starts the actors `config.actors` names on one NATS connection. Actors start in
 * dependency order (the edge last, so it never accepts a request nobody can answer)
 * and stop in reverse.
 */
export async function startEngine(config: Config, log: Logger): Promise<Engine> {
  const instance = instanceId();
  const tracing = tracingSettings(config, process.env);
  if (tracing !== undefined) startTracing(tracing, instance);
  // Only an engine that started tracing stops it (another engine of the process may use it).
  const endTracing = (): Promise<void> => (tracing === undefined ? Promise.resolve() : stopTracing());
  const bus = await Bus.connect({ servers: config.natsUrl, prefix: config.natsPrefix, name: `service-graphql-${instance}`, log, localDelivery: config.busLocalDelivery });
  let address: EdgeAddress | undefined;
  // Each process serves its own metrics, so only one whose edge serves /v1/metrics keeps any.
  const metrics = config.enabledApis.includes('metrics') && config.actors.includes('edge') ? new EngineMetrics(() => bus.connection.flush()) : undefined;
  const available: Record<ActorName, Actor> = {
    schema: schemaActor,
    auth: authActor,
    triggers: triggersActor,
    'remote-schema': remoteSchemaActor,
    subscriptions: subscriptionsActor,
    edge: edgeActor((listening) => (address = listening)),
  };
  // The remote-schema actor before the schema actor, which introspects remotes at start.
  const order: ActorName[] = ['auth', 'remote-schema', 'schema', 'triggers', 'subscriptions', 'edge'];
  if (config.actors.includes('edge') && !config.actors.includes('subscriptions')) {
    // A subscription lives where its socket is: another process's subscriptions actor cannot hold it.
    log.warn('this process runs the edge without the subscriptions actor: its WebSockets answer queries and mutations, and refuse subscriptions');
  }
  const running: RunningActor[] = [];
  try {
    for (const name of order.filter((candidate) => config.actors.includes(candidate))) {
      running.push(await startActor(available[name], { bus, config, log, instance, ...(metrics === undefined ? {} : { metrics }) }));
      // The actor's subscriptions reach the server before the next actor (the edge last) and
      // before the engine says it started: another process may send it a request at once.
      await bus.flush();
    }
  } catch (error) {
    for (const actor of running.reverse()) await actor.stop().catch(() => undefined);
    await bus.close();
    await endTracing();
    throw error;
  }
  const host = address === undefined ? undefined : address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  return {
    instance,
    bus,
    url: address === undefined ? undefined : `http://${host}:${address.port}`,
    async stop() {
      for (const actor of running.slice().reverse()) await actor.stop().catch((error: unknown) => log.error({ err: error }, 'actor failed to stop'));
      await bus.close();
      await endTracing().catch((error: unknown) => log.warn({ err: error }, 'could not send the last spans'));
    },
  };
}
