import type { FunctionEntry } from '../../metadata/types.js';
import { relationKey } from '../../pg/catalog.js';
import type { FunctionDescription, Verdict } from '../description.js';
import type { FunctionFacts } from '../facts.js';
import { argumentSlots, inputArgs, isJsonType, sessionSlot } from './arguments.js';
import { isGraphqlName } from '../../graphql/name.js';
import { displayName, quoted } from '../../metadata/names.js';
import { missingFunction, overloadedFunction, reasonMessage } from './reasons.js';

/**
 * The rules a function must pass to be tracked (interface 2.4, compat-facts 6.3, after
 * Hasura's `buildFunctionInfo`): one `pg_proc` row, returning rows of a tracked table,
 * IN arguments with GraphQL names, a json session argument, and a volatility that fits
 * where it is exposed. Every failed rule is reported, as Hasura does.
 */
export function describeFunction(entry: FunctionEntry, facts: FunctionFacts): Verdict<FunctionDescription> {
  const fn = entry.function;
  const context = `in function ${quoted(fn)}: `;
  if (facts.candidates.length === 0) return { ok: false, reason: context + missingFunction(fn) };
  if (facts.candidates.length > 1) return { ok: false, reason: context + overloadedFunction(fn) };
  const raw = facts.candidates[0]!;
  const configuration = entry.configuration ?? {};

  const reasons: string[] = [];
  const graphqlName = configuration.custom_name ?? (fn.schema === 'public' ? fn.name : `${fn.schema}_${fn.name}`);
  if (!isGraphqlName(graphqlName)) reasons.push('function name is not a legal GraphQL identifier');
  if (raw.args.some((arg) => arg.mode === 'v')) reasons.push('function with "VARIADIC" parameters are not supported');
  // Interface 2.4: argument modes must be IN only.
  if (raw.args.some((arg) => arg.mode === 'o' || arg.mode === 'b')) reasons.push('function with "OUT" or "INOUT" parameters are not supported');
  const returnKey = relationKey(raw.returnTypeSchema, raw.returnType);
  if (raw.returnTypeKind !== 'c') reasons.push('the function does not return a "COMPOSITE" type');
  else if (!facts.relations.includes(returnKey)) reasons.push('the function does not return a table');
  if (configuration.exposed_as === 'mutation' && raw.volatility !== 'v') {
    reasons.push('the function was requested to be exposed as a mutation, but is not marked VOLATILE. Maybe the function was given the wrong volatility when it was defined?');
  }
  const args = inputArgs(raw);
  const badNames = args.flatMap((arg) => (arg.name !== null && !isGraphqlName(arg.name) ? [arg.name] : []));
  if (badNames.length > 0) reasons.push(`the function arguments ${badNames.join(',')} are not in compliance with GraphQL spec`);
  const session = configuration.session_argument ?? null;
  if (session !== null) {
    const arg = args.find((candidate) => candidate.name === session);
    if (arg === undefined) reasons.push(`given session argument ${JSON.stringify(session)} not the input argument of the function`);
    else if (!isJsonType(arg)) reasons.push(`given session argument ${JSON.stringify(session)} is not of type json`);
  }
  if (reasons.length > 0) return { ok: false, reason: `${context}the function ${quoted(fn)} cannot be tracked ${reasonMessage(reasons)}` };

  const returnTable = { schema: raw.returnTypeSchema, name: raw.returnType };
  if (!facts.tracked.includes(returnKey)) return { ok: false, reason: `${context}table ${JSON.stringify(displayName(returnTable))} is not tracked` };

  return {
    ok: true,
    description: {
      function: fn,
      volatility: raw.volatility,
      // Compat-facts 6.2: without exposed_as, VOLATILE functions are mutations.
      exposedAs: configuration.exposed_as ?? (raw.volatility === 'v' ? 'mutation' : 'query'),
      returnTable,
      returnsSet: raw.returnsSet,
      arguments: argumentSlots(args, (arg) => (session !== null && arg.name === session ? sessionSlot(arg) : null)),
      comment: entry.comment ?? raw.comment,
    },
  };
}
