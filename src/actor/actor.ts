import type { Bus, RequestHandler } from '../bus/bus.js';
import type { Config } from '../config/load.js';
import type { ActorName } from '../config/options.js';
import type { Logger } from '../log/logger.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';

/** What an actor gets to work with; it shares nothing else with other actors. */
export interface ActorContext {
  readonly name: ActorName;
  readonly instance: string;
  readonly bus: Bus;
  readonly config: Config;
  readonly log: Logger;
  /** This process's Prometheus metrics, when the metrics API is served here; undefined costs nothing. */
  readonly metrics: EngineMetrics | undefined;
  /** Serves a request subject in its queue group, counting handled/failed and latency. */
  serve(subject: string, handler: RequestHandler): void;
  /** Receives a broadcast subject on this instance. */
  listen<T>(subject: string, handler: (message: T, subject: string) => void | Promise<void>): void;
  /** Publishes a notable happening on `<p>.monitor.events.<kind>`. */
  announce(kind: string, detail: Record<string, unknown>): void;
  /** Adds actor-specific figures (lag, pending, ...) to every heartbeat and ping reply. */
  reportGauges(read: () => Record<string, number | string | boolean | null>): void;
}

/** A running actor: what it must release when the process stops. */
export interface RunningActor {
  stop(): Promise<void>;
}

export interface Actor {
  readonly name: ActorName;
  /** Start-up checks of the settings the actor owns, run before anything is started or connected; throws a ConfigError. */
  checkSettings?(config: Config): void;
  start(context: ActorContext): Promise<RunningActor>;
}

