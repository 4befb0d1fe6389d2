import { errors } from '../errors/errors.js';
import { ROLE_VARIABLE, SESSION_VARIABLE_PREFIX } from '../session/session.js';
import type { ApiLimits, Limit, RateLimit } from './types.js';

const LIMIT_KEYS = ['depth_limit', 'node_limit', 'time_limit', 'batch_limit', 'rate_limit'] as const;

/** Hasura's text for a `unique_params` that is neither IP nor a list of session variables. */
const UNIQUE_PARAMS_MESSAGE = "Not a valid value. Should be either: 'IP' or a list of Hasura session variables";

/**
 * Refuses what the JSON Schema cannot say of `api_limits`: `unique_params` is `IP` or a
 * list of session variables (not the role, which every rate limit counts by already).
 */
export function checkApiLimits(limits: ApiLimits | undefined, path: string): void {
  const rate = limits?.rate_limit;
  if (rate === undefined) return;
  const check = (value: RateLimit, at: string) => {
    const params = value.unique_params;
    if (params === undefined || params === 'IP' || (params as unknown) === 'ip') return;
    const valid = Array.isArray(params) && params.every((name) => typeof name === 'string' && name.toLowerCase().startsWith(SESSION_VARIABLE_PREFIX) && name.toLowerCase() !== ROLE_VARIABLE);
    if (!valid) throw errors.parseFailed(`${at}.unique_params`, UNIQUE_PARAMS_MESSAGE);
  };
  check(rate.global, `${path}.rate_limit.global`);
  for (const [role, value] of Object.entries(rate.per_role ?? {})) check(value, `${path}.rate_limit.per_role.${role}`);
}

/** The export form: `disabled` and each limit's `per_role` always written, session variables lower-cased; none at all when nothing is set. */
export function normalizeApiLimits(limits: ApiLimits | undefined): ApiLimits | undefined {
  if (limits === undefined) return undefined;
  const out: ApiLimits = { disabled: limits.disabled ?? false };
  for (const key of LIMIT_KEYS) {
    const limit = limits[key] as Limit<unknown> | undefined;
    if (limit === undefined) continue;
    (out as unknown as Record<string, Limit<unknown>>)[key] = key === 'rate_limit' ? normalizeRate(limit as Limit<RateLimit>) : { global: limit.global, per_role: sortedRoles(limit.per_role ?? {}) };
  }
  const empty = !out.disabled && LIMIT_KEYS.every((key) => out[key] === undefined);
  return empty ? undefined : out;
}

function normalizeRate(limit: Limit<RateLimit>): Limit<RateLimit> {
  const one = (value: RateLimit): RateLimit => {
    const params = value.unique_params;
    if (params === undefined) return { max_reqs_per_min: value.max_reqs_per_min };
    return { max_reqs_per_min: value.max_reqs_per_min, unique_params: Array.isArray(params) ? params.map((name) => name.toLowerCase()) : 'IP' };
  };
  const perRole: Record<string, RateLimit> = {};
  for (const [role, value] of Object.entries(sortedRoles(limit.per_role ?? {}))) perRole[role] = one(value);
  return { global: one(limit.global), per_role: perRole };
}

function sortedRoles<T>(perRole: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(perRole).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
