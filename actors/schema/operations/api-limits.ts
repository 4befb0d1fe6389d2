import { checkApiLimits, normalizeApiLimits } from '../../../src/metadata/api-limits.js';
import type { ApiLimits, Metadata } from '../../../src/metadata/types.js';
import { SUCCESS, type Operation } from './operation.js';

/** The metadata with `limits` as its api_limits (none: the key goes). */
function withApiLimits(metadata: Metadata, limits: ApiLimits | undefined): Metadata {
  const { api_limits: _replaced, ...rest } = metadata;
  return limits === undefined ? rest : { ...rest, api_limits: limits };
}

/** Hasura's set_api_limits: the given object replaces every limit set before. */
export const setApiLimits: Operation<ApiLimits> = {
  type: 'set_api_limits',
  argsSchema: 'query/set_api_limits',
  async run(args, context) {
    checkApiLimits(args, context.argsPath);
    return { response: SUCCESS, metadata: withApiLimits(context.metadata, normalizeApiLimits(args)) };
  },
};

export const removeApiLimits: Operation<Record<string, never>> = {
  type: 'remove_api_limits',
  argsSchema: 'query/remove_api_limits',
  async run(_args, context) {
    return { response: SUCCESS, metadata: withApiLimits(context.metadata, undefined) };
  },
};
