import { getNamedType, isInputObjectType, isListType, isNonNullType, valueFromAST, type GraphQLInputType } from 'graphql';
import { errors } from '../../../src/errors/errors.js';
import type { Session } from '../../../src/session/session.js';
import { sessionValueAs } from '../permissions/preset.js';
import type { PresetSpot } from '../permissions/role-view.js';
import type { ForwardPlan } from './plan.js';

/**
 * The variables of one upstream call: the client's (coerced) variables, the session
 * values of the plan's session presets, and the role's input field presets set inside
 * every variable value that can hold a preset input object (interface 2.3 rules 3-5).
 */
export function upstreamVariables(plan: ForwardPlan, variables: Record<string, unknown>, session: Session): Record<string, unknown> {
  if (plan.sessionPresets.length === 0 && plan.presetVariables.length === 0) return variables;
  const out: Record<string, unknown> = { ...variables };
  for (const preset of plan.sessionPresets) out[preset.variable] = sessionPreset(preset.session, preset.type, session);
  const presets = plan.remote.view.inputFieldPresets;
  const upstreamName = plan.remote.model.names.upstreamType;
  for (const { name, type } of plan.presetVariables) if (out[name] !== undefined) out[name] = injectInputPresets(out[name], type, { presets, upstreamName }, session);
  return out;
}

function sessionPreset(variable: string, type: GraphQLInputType, session: Session): unknown {
  const text = session.variables[variable];
  // A missing session variable is an error, never a null (interface 2.3 rule 3).
  if (text === undefined) throw errors.presetSessionVariableMissing('$', variable);
  const value = sessionValueAs(text, type);
  if (value === undefined) throw errors.presetSessionVariableInvalid('$', variable, String(getNamedType(type)));
  return value;
}

function presetOf(spot: PresetSpot, session: Session): unknown {
  return spot.preset.kind === 'session' ? sessionPreset(spot.preset.variable, spot.type, session) : valueFromAST(spot.preset.value, spot.type);
}

/** Input field presets by upstream type name, and the upstream name of a served type. */
interface InputPresets {
  presets: ReadonlyMap<string, ReadonlyMap<string, PresetSpot>>;
  upstreamName: (served: string) => string;
}

/** A variable's value with the role's input field presets set at every depth, overriding whatever was sent. */
function injectInputPresets(value: unknown, type: GraphQLInputType, input: InputPresets, session: Session): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return injectInputPresets(value, type.ofType, input, session);
  if (isListType(type)) return Array.isArray(value) ? value.map((item) => injectInputPresets(item, type.ofType, input, session)) : injectInputPresets(value, type.ofType, input, session);
  if (!isInputObjectType(type) || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const fields = type.getFields();
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) out[key] = fields[key] === undefined ? inner : injectInputPresets(inner, fields[key].type, input, session);
  for (const [name, spot] of input.presets.get(input.upstreamName(type.name)) ?? []) out[name] = presetOf(spot, session);
  return out;
}
