#!/usr/bin/env node
// First: it sets NODE_ENV, which graphql-js reads as it loads.
import './node-env.js';
import { resolve } from 'node:path';
import { Bus } from './bus/bus.js';
import { ensureLocalNats, NatsUnavailableError, type LocalNats } from './bus/local-nats.js';
import { helpText } from './config/help.js';
import { ConfigError, loadConfig, parseCommandLine, type Config } from './config/load.js';
import { checkActorSettings, DATABASE_ACTORS, startEngine } from './engine.js';
import { createLogger, type Logger } from './log/logger.js';
import { typedLog } from './log/log-types.js';
import { startupInfo } from './log/startup.js';
import { runMonitor } from './monitor/monitor.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './pg/embedded.js';

/** The CLI: `serve` (default) runs the edge and the actors; `monitor` watches a cluster. */
async function main(argv: string[]): Promise<number> {
  const commandLine = parseCommandLine(argv);
  if (commandLine.help) {
    process.stdout.write(helpText());
    return 0;
  }
  const config = loadConfig(commandLine.values, process.env);
  const log = createLogger(config.logLevel);
  switch (commandLine.command ?? 'serve') {
    case 'serve':
      return serve(config, log);
    case 'monitor':
      return monitor(config, log);
    default:
      throw new ConfigError(`unknown command ${JSON.stringify(commandLine.command)}; see --help`);
  }
}

async function serve(config: Config, log: Logger): Promise<number> {
  // A bad JWT or auth setting stops start-up before anything is started or connected.
  checkActorSettings(config);
  // What this process started (a local NATS, the embedded PostgreSQL) is stopped again
  // however serving ends, a failed start-up included, so that nothing is left orphaned.
  const started: (LocalNats | EmbeddedDatabase)[] = [];
  try {
    started.push(await ensureLocalNats({ url: config.natsUrl, dataDir: config.dataDir }));
    let effective = config;
    if (config.databaseUrl === undefined && config.actors.some((actor) => DATABASE_ACTORS.includes(actor))) {
      const dataDir = resolve(config.dataDir, 'pg');
      log.info({ dataDir, port: config.embeddedPgPort }, 'no SERVICE_GRAPHQL_DATABASE_URL: using the embedded PostgreSQL');
      const database = await startEmbeddedPostgres({ dataDir, port: config.embeddedPgPort, onLog: (line) => log.debug({ postgres: line.trim() }) });
      started.push(database);
      effective = { ...config, databaseUrl: database.url };
    }
    if (config.adminSecret === undefined) {
      log.warn('NO ADMIN SECRET IS SET: every request runs as admin (development mode). Set SERVICE_GRAPHQL_ADMIN_SECRET before exposing this server.');
    }
    const engine = await startEngine(effective, log);
    log.info({ instance: engine.instance, url: engine.url, prefix: config.natsPrefix, actors: config.actors }, 'engine started');
    typedLog(log, 'startup', config.enabledLogTypes).info({ kind: 'server_configuration', info: startupInfo(effective) }, 'startup');

    await new Promise<void>((resolveStop) => {
      const stop = (signal: string) => {
        log.info({ signal }, 'stopping');
        resolveStop();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    await engine.stop();
  } finally {
    for (const service of started.reverse()) await service.stop().catch((error: unknown) => log.error({ err: error }, 'failed to stop a local service'));
  }
  return 0;
}

async function monitor(config: Config, log: Logger): Promise<number> {
  const bus = await Bus.connect({ servers: config.natsUrl, prefix: config.natsPrefix, name: 'service-graphql-monitor', log });
  await runMonitor(bus, process.stdout, { once: config.monitorOnce, refreshMs: config.heartbeatMs });
  await bus.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof NatsUnavailableError) {
      process.stderr.write(`service-graphql-engine: ${error.message}\n`);
    } else {
      process.stderr.write(`service-graphql-engine: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  },
);
