import { getVariableValues, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConsistency } from '../../actors/schema/consistency/check.js';
import { namedPlan, planFor, type CompiledPlan } from '../../actors/schema/execution/plan-cache.js';
import { buildRoleSchema } from '../../actors/schema/graphql/role-schema.js';
import { roleAccess } from '../../actors/schema/models/role-access.js';
import { buildSourceModel } from '../../actors/schema/models/table-model.js';
import { writeAccess } from '../../actors/schema/models/write-access.js';
import { compileOperation } from '../../actors/schema/sql/compile-operation.js';
import { bindParams } from '../../actors/schema/sql/params.js';
import { introspectCatalog } from '../../src/pg/catalog.js';
import { goldenMetadata, setupGraphqlFixture, type GraphqlFixture } from './fixture.js';

/**
 * The plan cache keys on what shapes the SQL text: a `where: $w` plan serves every `$w`
 * of the same keys and operators, its leaves bound as parameters; a `$w` of another shape,
 * or a literal (LIMIT) of another value, gets a plan of its own.
 */
let fixture: GraphqlFixture;
let planner: (query: string) => { plans: CompiledPlan[]; compiles: () => number; bind: (variables: Record<string, unknown>) => { plan: CompiledPlan; values: unknown[] } };

beforeAll(async () => {
  fixture = await setupGraphqlFixture();
  const catalog = await introspectCatalog(fixture.database.pool);
  const model = buildSourceModel(checkConsistency(goldenMetadata(), catalog).consistent, catalog);
  const access = roleAccess(model, 'admin');
  const schema = buildRoleSchema(access, writeAccess(model, access));
  planner = (query) => {
    const operation = parse(query).definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
    const plans: CompiledPlan[] = [];
    let compiles = 0;
    return {
      plans,
      compiles: () => compiles,
      bind: (raw) => {
        const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], raw);
        if (coerced.errors !== undefined) throw coerced.errors[0]!;
        const variables = coerced.coerced;
        const plan = planFor(plans, variables, () => {
          compiles += 1;
          return namedPlan(compileOperation({ model, access, operation, fragments: new Map(), variables, resolveStatic: () => 'null' }));
        });
        return { plan, values: bindParams(plan.params, variables, {}) };
      },
    };
  };
});
afterAll(async () => {
  await fixture.close();
});

const ids = (data: unknown) => ((data as { article: Array<{ id: number }> }).article).map((row) => row.id);

describe('plans keyed on the shape of an object variable', () => {
  const query = 'query ($w: article_bool_exp) { article(where: $w, order_by: {id: asc}) { id } }';

  it('reuses one plan for two values of the same shape, binding each one\'s leaves', () => {
    const planned = planner(query);
    const first = planned.bind({ w: { author_id: { _eq: 1 }, views: { _gte: 5 } } });
    const second = planned.bind({ w: { author_id: { _eq: 2 }, views: { _gte: 100 } } });
    expect(planned.compiles()).toBe(1);
    expect(second.plan).toBe(first.plan);
    expect(first.values).toEqual([1, 5]);
    expect(second.values).toEqual([2, 100]);
  });

  it('compiles another plan for another shape: other keys, operators, list length or nullness', () => {
    const planned = planner(query);
    planned.bind({ w: { author_id: { _eq: 1 } } });
    planned.bind({ w: { author_id: { _eq: 3 } } });
    expect(planned.compiles()).toBe(1);
    const shapes = [
      { author_id: { _neq: 1 } },
      { views: { _eq: 10 } },
      { author_id: { _eq: 1 }, views: { _eq: 10 } },
      { _or: [{ author_id: { _eq: 1 } }] },
      { _or: [{ author_id: { _eq: 1 } }, { author_id: { _eq: 2 } }] },
      { is_published: { _is_null: true } },
      { is_published: { _is_null: false } },
    ];
    for (const w of shapes) planned.bind({ w });
    expect(planned.compiles()).toBe(1 + shapes.length);
    // Each shape, asked again with other leaves, finds its own plan.
    planned.bind({ w: { _or: [{ author_id: { _eq: 3 } }, { author_id: { _eq: 1 } }] } });
    planned.bind({ w: { is_published: { _is_null: false } } });
    expect(planned.compiles()).toBe(1 + shapes.length);
  });

  it('keys on the literal limit: another value is another plan, the same value the same one', () => {
    const planned = planner('query ($n: Int) { article(limit: $n, order_by: {id: asc}) { id } }');
    const two = planned.bind({ n: 2 });
    const three = planned.bind({ n: 3 });
    expect(planned.compiles()).toBe(2);
    expect(planned.bind({ n: 2 }).plan).toBe(two.plan);
    expect(two.plan.sql).toContain(' limit 2)');
    expect(three.plan.sql).toContain(' limit 3)');
    expect(two.values).toEqual([]);
  });

  it('answers each value of a shared shape with its own rows, through the engine', async () => {
    const first = await fixture.run(query, { variables: { w: { author_id: { _eq: 1 }, is_published: { _eq: false } } } });
    const second = await fixture.run(query, { variables: { w: { author_id: { _eq: 2 }, is_published: { _eq: true } } } });
    const third = await fixture.run(query, { variables: { w: { author_id: { _in: [1, 3] }, is_published: { _eq: false } } } });
    expect(ids(first.body.data)).toEqual([2]);
    expect(ids(second.body.data)).toEqual([3, 4]);
    expect(ids(third.body.data)).toEqual([2, 5]);
    expect(second.statements[0]!.text).toBe(first.statements[0]!.text);
    expect(second.statements[0]!.values).toEqual([2, true]);
  });

  it('keeps reading nested lists and objects of the variable per request (an insert of many rows)', async () => {
    const mutation = 'mutation ($rows: [comment_insert_input!]!) { insert_comment(objects: $rows) { returning { body } } }';
    const one = await fixture.run(mutation, { rollback: true, variables: { rows: [{ article_id: 1, body: 'a' }, { article_id: 2, body: 'b' }] } });
    const two = await fixture.run(mutation, { rollback: true, variables: { rows: [{ article_id: 3, body: 'c' }, { article_id: 4, body: 'd' }] } });
    expect(one.body.data).toEqual({ insert_comment: { returning: [{ body: 'a' }, { body: 'b' }] } });
    expect(two.body.data).toEqual({ insert_comment: { returning: [{ body: 'c' }, { body: 'd' }] } });
    expect(two.statements.map((statement) => statement.text)).toEqual(one.statements.map((statement) => statement.text));
  });
});
