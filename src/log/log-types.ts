import { writeFlatLine } from './flat-line.js';
import type { Logger } from './logger.js';

/** Hasura's switchable log types (HASURA_GRAPHQL_ENABLED_LOG_TYPES), which SERVICE_GRAPHQL_ENABLED_LOG_TYPES chooses among. */
export const LOG_TYPES = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'query-log'] as const;
export type LogType = (typeof LOG_TYPES)[number];

/** Hasura's default: everything but query-log, whose SQL is for debugging. */
export const DEFAULT_LOG_TYPES: LogType[] = ['startup', 'http-log', 'webhook-log', 'websocket-log'];

/** Lines of one log type, written only when the type is enabled; `enabled` lets a caller skip gathering their fields. */
export interface TypedLog {
  readonly enabled: boolean;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

const SILENT: TypedLog = { enabled: false, info: () => undefined, warn: () => undefined };

export function typedLog(log: Logger, type: LogType, enabledTypes: readonly LogType[]): TypedLog {
  if (!enabledTypes.includes(type)) return SILENT;
  const info = log.isLevelEnabled('info');
  const warn = log.isLevelEnabled('warn');
  return {
    enabled: info,
    info: (fields, message) => {
      if (info && !writeFlatLine(log, 'info', type, fields, message)) log.info({ type, ...fields }, message);
    },
    warn: (fields, message) => {
      if (warn && !writeFlatLine(log, 'warn', type, fields, message)) log.warn({ type, ...fields }, message);
    },
  };
}
