import { isGraphqlName } from '../graphql/name.js';

/**
 * The rules names in the metadata follow, as JSON Schema formats that `schemas/` names
 * (`"format": "graphql-name"`) and the validator registers with Ajv. Each says what is
 * wrong in the words Hasura uses, for a `parse-failed` at the name's path.
 */
export interface NameRule {
  /** Whether the string is a valid name. */
  test(value: string): boolean;
  /** Why it is not. */
  problem(value: string): string;
}

/** Longest name we accept where Hasura sets no limit: room for any real name, none for a megabyte. */
export const MAX_NAME_LENGTH = 128;
/** Hasura's limit (63 - len("notify_hasura_") - len("_INSERT")), kept though the capture runs no SQL trigger. */
export const MAX_TRIGGER_NAME_LENGTH = 42;
/** Hasura's event trigger name (EventTrigger.hs). */
const TRIGGER_NAME = /^[A-Za-z]+[A-Za-z0-9_-]*$/;

const shown = (value: string): string => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

export const NAME_RULES = {
  /** A custom root field, type, column or relationship name: a GraphQL Name, not introspection's `__` (so no `__typename`). */
  'graphql-name': {
    test: (value) => value.length <= MAX_NAME_LENGTH && isGraphqlName(value),
    problem: (value) =>
      value.length > MAX_NAME_LENGTH
        ? `a GraphQL name can be at most ${MAX_NAME_LENGTH} characters`
        : value.startsWith('__')
          ? `${shown(value)} is not a valid GraphQL name: names starting with "__" are reserved for introspection`
          : `${shown(value)} is not a valid GraphQL name`,
  },
  'trigger-name': {
    test: (value) => TRIGGER_NAME.test(value) && value.length <= MAX_TRIGGER_NAME_LENGTH,
    problem: (value) => (TRIGGER_NAME.test(value) ? `event trigger name can be at most ${MAX_TRIGGER_NAME_LENGTH} characters` : 'only alphanumeric and underscore and hyphens allowed for name'),
  },
} satisfies Record<string, NameRule>;

export type NameFormat = keyof typeof NAME_RULES;
