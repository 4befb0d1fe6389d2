import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, asUser, startFunctionsFixture, type FunctionsFixture } from './fixture.js';

/** VOLATILE functions under mutation_root (compat-facts 6.2, "Exposure" and "Function permissions"). */
let fx: FunctionsFixture;

beforeAll(async () => {
  fx = await startFunctionsFixture();
  const tracked = await fx.query({
    type: 'bulk',
    args: [
      { type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'add_note' }, configuration: { session_argument: 'service_session' } } },
      { type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'add_note_as_setting' } } },
    ],
  });
  expect(tracked.json).toEqual([{ message: 'success' }, { message: 'success' }]);
});

afterAll(async () => {
  await fx?.stop();
});

describe('a VOLATILE function', () => {
  it('is a mutation that writes, and its effect is read back', async () => {
    const written = await fx.gql('mutation { add_note(args: {body: "first"}) { author_id body } }', { ...admin, 'x-service-user-id': '2' });
    expect(written).toEqual({ data: { add_note: [{ author_id: 2, body: 'first' }] } });
    expect(await fx.gql('{ note(order_by: {id: asc}) { author_id body } }')).toEqual({ data: { note: [{ author_id: 2, body: 'first' }] } });
  });

  it('is not a query field', async () => {
    expect((await fx.gql('{ add_note(args: {body: "x"}) { id } }')).errors[0].message).toBe("field 'add_note' not found in type: 'query_root'");
  });

  it('runs with service.user set to the session', async () => {
    const written = await fx.gql('mutation { add_note_as_setting(args: {body: "from setting"}) { author_id body } }', { ...admin, 'x-service-user-id': '3' });
    expect(written).toEqual({ data: { add_note_as_setting: [{ author_id: 3, body: 'from setting' }] } });
  });

  it('is offered to a role only with a function permission, and its rows follow the return table\'s permission', async () => {
    expect((await fx.gql('mutation { add_note(args: {body: "x"}) { id } }', asUser(1))).errors[0].extensions.code).toBe('validation-failed');
    expect((await fx.query({ type: 'create_function_permission', args: { function: 'add_note', role: 'user' } })).json).toEqual({ message: 'success' });
    const written = await fx.gql('mutation { add_note(args: {body: "mine"}) { author_id body } }', asUser(1));
    expect(written).toEqual({ data: { add_note: [{ author_id: 1, body: 'mine' }] } });
    expect(await fx.gql('{ note { body } }', asUser(1))).toEqual({ data: { note: [{ body: 'mine' }] } });
  });

  it('rolls back with the rest of the mutation when a later field fails', async () => {
    const result = await fx.gql('mutation { a: add_note(args: {body: "kept?"}) { id } b: add_note(args: {body: null}) { id } }', { ...admin, 'x-service-user-id': '1' });
    expect(result.errors[0].extensions.code).toBe('constraint-violation');
    expect((await fx.gql('{ note_aggregate(where: {body: {_eq: "kept?"}}) { aggregate { count } } }')).data.note_aggregate.aggregate.count).toBe(0);
  });

  it('is a query when exposed_as says so', async () => {
    const customized = await fx.query({ type: 'set_function_customization', args: { function: 'add_note', configuration: { session_argument: 'service_session', exposed_as: 'query' } } });
    expect(customized.json).toEqual({ message: 'success' });
    const data = await fx.gql('{ add_note(args: {body: "as query"}) { body } }', { ...admin, 'x-service-user-id': '1' });
    expect(data).toEqual({ data: { add_note: [{ body: 'as query' }] } });
    expect((await fx.gql('mutation { add_note(args: {body: "x"}) { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('leaves mutation_root when untracked', async () => {
    expect((await fx.query({ type: 'untrack_function', args: { schema: 'public', name: 'add_note_as_setting' } })).json).toEqual({ message: 'success' });
    const result = await fx.gql('mutation { add_note_as_setting(args: {body: "x"}) { id } }');
    expect(result.errors[0].extensions.code).toBe('validation-failed');
  });
});
