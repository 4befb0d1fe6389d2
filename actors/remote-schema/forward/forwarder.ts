import { Kind, parse, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import type { ExecuteRequest } from '../../../src/bus/messages/remote-schema.js';
import { LruCache } from '../../../src/cache/lru.js';
import { errors } from '../../../src/errors/errors.js';
import { resolveDefinition, type ResolvedRemote } from '../definition.js';
import type { RemoteModels, RoleRemote } from '../model.js';
import type { UpstreamClient } from '../upstream-client.js';
import { planForward, type ForwardPlan } from './plan.js';
import { upstreamVariables } from './presets.js';
import { mapRemoteResponse } from './response.js';
import { callUpstream, type UpstreamAnswer } from './upstream-call.js';
import type { TraceContext } from '../../../src/tracing/tracer.js';

/** Distinct documents kept planned per role view, and distinct definitions kept resolved. */
const PLANS_PER_VIEW = 1000;
const DEFINITIONS_KEPT = 256;

/**
 * Runs `<p>.remote.execute`: the role's view of the remote (built from the message, kept
 * by content), the operation's forward plan (kept per view and document text), the
 * session's preset values, one upstream call, and the response renamed back to the
 * served names.
 */
export class Forwarder {
  readonly #models: RemoteModels;
  readonly #client: UpstreamClient;
  readonly #plans = new WeakMap<RoleRemote, LruCache<ForwardPlan>>();
  readonly #definitions = new LruCache<ResolvedRemote>(DEFINITIONS_KEPT);

  constructor(models: RemoteModels, client: UpstreamClient) {
    this.#models = models;
    this.#client = client;
  }

  async execute(request: ExecuteRequest, trace?: TraceContext): Promise<UpstreamAnswer> {
    const remote = await this.#models.view(request.remote).catch((error: unknown) => {
      throw errors.remoteSchemaFailed('$', `remote schema ${JSON.stringify(request.remote.name)} cannot be served: ${(error as Error).message}`);
    });
    const plan = this.#plan(remote, request);
    const answer = await callUpstream(this.#client, this.#resolved(request.remote.definition), {
      query: plan.query,
      variables: upstreamVariables(plan, request.variables, request.session),
      operationName: plan.operationName,
      session: request.session,
      headers: request.headers,
      name: request.remote.name,
      trace,
    });
    if (plan.response === null) return answer;
    return { body: mapRemoteResponse(answer.body, plan.response, remote.model.names), setCookies: answer.setCookies };
  }

  #plan(remote: RoleRemote, request: ExecuteRequest): ForwardPlan {
    let plans = this.#plans.get(remote);
    if (plans === undefined) {
      plans = new LruCache<ForwardPlan>(PLANS_PER_VIEW);
      this.#plans.set(remote, plans);
    }
    const key = `${request.operationName ?? ''}\u0000${request.query}`;
    let plan = plans.get(key);
    if (plan === undefined) {
      const { operation, fragments } = chosenOperation(request);
      plan = planForward(remote, operation, fragments);
      plans.set(key, plan);
    }
    return plan;
  }

  /** The definition's URL and headers, environment variables read once per distinct definition. */
  #resolved(definition: ExecuteRequest['remote']['definition']): ResolvedRemote {
    const key = JSON.stringify(definition);
    let resolved = this.#definitions.get(key);
    if (resolved === undefined) {
      resolved = resolveDefinition(definition, '$');
      this.#definitions.set(key, resolved);
    }
    return resolved;
  }
}

/** The operation the schema actor validated and chose, with the document's fragments. */
function chosenOperation(request: ExecuteRequest): { operation: OperationDefinitionNode; fragments: Map<string, FragmentDefinitionNode> } {
  let document: DocumentNode;
  try {
    document = parse(request.query);
  } catch {
    throw errors.validationFailed('$.query', 'not a valid graphql query');
  }
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = request.operationName === null ? operations[0] : operations.find((candidate) => candidate.name?.value === request.operationName);
  if (operation === undefined) throw errors.validationFailed('$', `no such operation found in the document: ${JSON.stringify(request.operationName)}`);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return { operation, fragments };
}
