import type { Config } from './load.js';

export const DEFAULT_CLAIMS_NAMESPACE = 'https://service.io/jwt/claims';

/**
 * The config API's answer (interface 2.8, compat-facts 9): what this server runs with.
 * `jwt` is one object, as the interface shows, and absent without JWT.
 */
export function configReport(config: Config, version: string): Record<string, unknown> {
  const jwt = config.jwtSecret;
  const report: Record<string, unknown> = {
    version,
    is_function_permissions_inferred: config.inferFunctionPermissions,
    is_remote_schema_permissions_enabled: config.enableRemoteSchemaPermissions,
    is_admin_secret_set: config.adminSecret !== undefined,
    is_auth_hook_set: config.authHook !== undefined,
    is_jwt_set: jwt !== undefined,
  };
  if (jwt !== undefined) {
    const namespace = typeof jwt.claims_namespace_path === 'string' ? jwt.claims_namespace_path : typeof jwt.claims_namespace === 'string' ? jwt.claims_namespace : DEFAULT_CLAIMS_NAMESPACE;
    const claimsMap = jwt.claims_map;
    report.jwt = {
      claims_namespace: claimsMap === undefined ? namespace : DEFAULT_CLAIMS_NAMESPACE,
      claims_format: claimsMap === undefined && typeof jwt.claims_format === 'string' ? jwt.claims_format : 'json',
      ...(claimsMap === undefined ? {} : { claims_map: claimsMap }),
    };
  }
  report.is_allow_list_enabled = config.enableAllowlist;
  report.live_queries = { batch_size: config.liveQueriesBatchSize, refetch_delay: config.liveQueriesRefetchDelay };
  report.streaming_queries = { batch_size: config.streamingQueriesBatchSize, refetch_delay: config.streamingQueriesRefetchDelay };
  report.console_assets_dir = null;
  report.experimental_features = [];
  report.is_prometheus_metrics_enabled = config.enabledApis.includes('metrics');
  report.default_naming_convention = 'service-default';
  return report;
}
