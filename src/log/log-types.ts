import { writeFlatLine } from './flat-line.js';
import type { Logger } from './logger.js';

/** Hasura's switchable log types (HASURA_GRAPHQL_ENABLED_LOG_TYPES), which SERVICE_GRAPHQL_ENABLED_LOG_TYPES chooses among. */
export const LOG_TYPES = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'query-log'] as const;
export type LogType = (typeof LOG_TYPES)[number];

/** Hasura's default: everything but query-log, whose SQL is for debugging. */
export const DEFAULT_LOG_TYPES: LogType[] = ['startup', 'http-log', 'webhook-log', 'websocket-log'];

/**
 * Lines of one log type, written only when the type is enabled; `enabled` lets a caller skip
 * gathering their fields. `raw` is the JSON text of an object of more fields (a reply's
 * log facts, wire.ts REPLY_META.logFields), written after `fields`.
 */
export interface TypedLog {
  readonly enabled: boolean;
  info(fields: Record<string, unknown>, message: string, raw?: string): void;
  warn(fields: Record<string, unknown>, message: string, raw?: string): void;
}

const SILENT: TypedLog = { enabled: false, info: () => undefined, warn: () => undefined };

export function typedLog(log: Logger, type: LogType, enabledTypes: readonly LogType[]): TypedLog {
  if (!enabledTypes.includes(type)) return SILENT;
  const info = log.isLevelEnabled('info');
  const warn = log.isLevelEnabled('warn');
  return {
    enabled: info,
    info: (fields, message, raw) => {
      if (info && !writeFlatLine(log, 'info', type, fields, message, raw)) log.info({ type, ...fields, ...parsed(raw) }, message);
    },
    warn: (fields, message, raw) => {
      if (warn && !writeFlatLine(log, 'warn', type, fields, message, raw)) log.warn({ type, ...fields, ...parsed(raw) }, message);
    },
  };
}

function parsed(raw: string | undefined): Record<string, unknown> {
  return raw === undefined ? {} : (JSON.parse(raw) as Record<string, unknown>);
}
