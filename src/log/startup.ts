import type { Config } from '../config/load.js';
import { configReport } from '../config/report.js';
import { ENGINE_VERSION } from '../version.js';

/**
 * The `startup` line's server configuration, as Hasura writes one at start: the config
 * API's report (which says whether secrets are set, never what they are) and what this
 * process serves.
 */
export function startupInfo(config: Config): Record<string, unknown> {
  return {
    ...configReport(config, ENGINE_VERSION),
    enabled_apis: config.enabledApis,
    enabled_log_types: config.enabledLogTypes,
    actors: config.actors,
    nats_prefix: config.natsPrefix,
  };
}
