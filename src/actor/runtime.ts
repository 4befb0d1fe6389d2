import { hostname } from 'node:os';
import type { Bus, Served } from '../bus/bus.js';
import { encodeJson } from '../bus/wire.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log/logger.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Heartbeat, MonitorEvent } from '../monitor/messages.js';
import type { Actor, ActorContext, RunningActor } from './actor.js';
import { LatencyWindow } from './latency.js';

export interface RuntimeDeps {
  bus: Bus;
  config: Config;
  log: Logger;
  instance: string;
  metrics?: EngineMetrics;
}

/**
 * Starts an actor with the runtime around it: its request subjects in queue groups,
 * counters and latency, a heartbeat every interval and an answer to every ping.
 */
export async function startActor(actor: Actor, deps: RuntimeDeps): Promise<RunningActor> {
  const { bus, config, instance } = deps;
  const log = deps.log.child({ actor: actor.name });
  const subscriptions: Served[] = [];
  const latency = new LatencyWindow();
  const counters = { handled: 0, failed: 0 };
  const gaugeReaders: (() => Record<string, number | string | boolean | null>)[] = [];
  const startedAt = new Date();

  const readGauges = (): Record<string, number | string | boolean | null> => Object.assign({}, ...gaugeReaders.map((read) => read()));
  const heartbeat = (): Heartbeat => ({
    actor: actor.name,
    instance,
    host: hostname(),
    pid: process.pid,
    started_at: startedAt.toISOString(),
    uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
    handled: counters.handled,
    failed: counters.failed,
    latency_ms: latency.percentiles(),
    gauges: readGauges(),
  });

  const context: ActorContext = {
    name: actor.name,
    instance,
    bus,
    config,
    log,
    metrics: deps.metrics,
    serve(subject, handler) {
      subscriptions.push(
        bus.serve(subject, handler, {
          queue: bus.subjects.queueOf(subject),
          onDone: (ms, failed) => {
            counters.handled++;
            if (failed) counters.failed++;
            latency.record(ms);
          },
        }),
      );
    },
    listen(subject, handler) {
      subscriptions.push(bus.listen(subject, handler));
    },
    announce(kind, detail) {
      const event: MonitorEvent = { kind, actor: actor.name, instance, at: new Date().toISOString(), detail };
      bus.publish(bus.subjects.monitorEvent(kind), event);
    },
    reportGauges(read) {
      gaugeReaders.push(read);
    },
  };

  const running = await actor.start(context);
  deps.metrics?.watchActor({ actor: actor.name, read: () => ({ handled: counters.handled, failed: counters.failed, gauges: readGauges() }) });
  subscriptions.push(bus.serve(bus.subjects.monitorPing, async () => encodeJson(heartbeat())));
  const publishHeartbeat = () => bus.publish(bus.subjects.heartbeat(actor.name, instance), heartbeat());
  publishHeartbeat();
  const timer = setInterval(publishHeartbeat, config.heartbeatMs);
  timer.unref();
  log.info({ instance }, 'actor started');

  return {
    async stop() {
      clearInterval(timer);
      for (const subscription of subscriptions) subscription.unsubscribe();
      await running.stop();
    },
  };
}
