/**
 * Every NATS subject the engine uses, built from the cluster's prefix. Nothing else in
 * the code spells a subject: find an actor's subjects here, and in the README's table.
 */

/**
 * The verbs of `<p>.remote.<verb>`, answered by the remote-schema actor (message
 * contracts in messages/remote-schema.ts, schemas/bus/remote-*.json).
 */
export const REMOTE_VERBS = {
  /** `{name, definition}` -> `{}`: the definition resolves (environment variables set) and its customization is well-formed. */
  check: 'check',
  /** `{name, definition}` -> `{snapshot}`: the remote introspected, its answer stored under that id. */
  introspect: 'introspect',
  /** `{snapshot}` -> `{introspection}`: a stored introspection answer, as the remote sent it. */
  snapshot: 'snapshot',
  /** `{remotes}` -> per remote: usable or why not, its root fields and type shapes, each permission's verdict. */
  describe: 'describe',
  /** `{remotes}` (as one role sees them) -> the role's remote SDL and where each root field goes. */
  roleView: 'role_view',
  /** one operation for one remote, as a role -> the client's response bytes (and cookies in the meta). */
  execute: 'execute',
} as const;
export type RemoteVerb = (typeof REMOTE_VERBS)[keyof typeof REMOTE_VERBS];

/** The verbs of `<p>.triggers.<verb>`, answered by the triggers actor (messages/triggers.ts). */
export const TRIGGERS_VERBS = {
  invoke: 'invoke',
  redeliver: 'redeliver',
  eventLogs: 'event_logs',
  invocationLogs: 'invocation_logs',
  eventById: 'event_by_id',
} as const;
export type TriggersVerb = (typeof TRIGGERS_VERBS)[keyof typeof TRIGGERS_VERBS];

/** The verbs of `<p>.subscriptions.<instance>.<verb>`, answered by that instance's subscriptions actor. */
export const SUBSCRIPTIONS_VERBS = {
  start: 'start',
  stop: 'stop',
  close: 'close',
} as const;
export type SubscriptionsVerb = (typeof SUBSCRIPTIONS_VERBS)[keyof typeof SUBSCRIPTIONS_VERBS];

export interface Subjects {
  readonly prefix: string;
  /** request, queue group: schema actor. `{session, operation}` -> operation result. */
  readonly query: string;
  /** request, queue group: schema actor. `{headers, body}` -> GraphQL response bytes. */
  readonly graphql: string;
  /** request, queue group: schema actor. `{}` -> `{status, inconsistent}` for /healthz. */
  readonly health: string;
  /** request, queue group: schema actor. A subscription of a session -> how to fetch it, or its refusal. */
  readonly subscriptionPlan: string;
  /** request, one instance's: its subscriptions actor (SUBSCRIPTIONS_VERBS), from the edge of the same instance. */
  subscriptions(instance: string, verb: SubscriptionsVerb): string;
  /** request, one instance's: its edge. Results for the subscriptions of its sockets. */
  edgeDeliver(instance: string): string;
  /** broadcast: per committed transaction, the tables it changed (the change feed), and the reader's heartbeat. */
  readonly changesTables: string;
  /** broadcast: an instance holds subscriptions that follow the change feed, so the slot is read. */
  readonly changesWanted: string;
  /** request, queue group: auth actor. `{headers}` -> session `{role, variables}`. */
  readonly authResolve: string;
  /** broadcast: the schema actor committed a new metadata `resource_version`. */
  readonly metadataChanged: string;
  /** broadcast: `{request_id}` nobody waits for any more (its client went away); whoever runs it stops. */
  readonly requestCancel: string;
  /** request answered by every actor instance: who is alive, with what counters. */
  readonly monitorPing: string;
  /** broadcast: an actor instance's counters, every heartbeat interval. */
  heartbeat(actor: string, instance: string): string;
  /** wildcard matching every heartbeat. */
  readonly heartbeatAll: string;
  /** broadcast: a notable happening (metadata change, delivery, failure, lag). */
  monitorEvent(kind: string): string;
  /** wildcard matching every monitor event. */
  readonly monitorEventAll: string;
  /** The queue group a request subject is served by. */
  queueOf(subject: string): string;
  /** request, queue group: remote-schema actor (REMOTE_VERBS). */
  remote(verb: RemoteVerb): string;
  /** request, queue group: triggers actor (TRIGGERS_VERBS). */
  triggers(verb: TriggersVerb): string;
  /** request answered by every triggers instance: `{event_id}` -> `{in_flight}`, whether its webhook call is under way there. */
  readonly triggersInFlight: string;
  /** JetStream stream `<P>_EVENTS`: one message per event, on `<p>.events.<trigger>`. */
  readonly eventsStream: string;
  eventsOf(trigger: string): string;
  readonly eventsAll: string;
  /** The durable consumer all instances' delivery workers share. */
  readonly eventsConsumer: string;
  /** JetStream stream `<P>_INVOCATIONS`: one record per webhook attempt, on `<p>.invocations.<trigger>`. */
  readonly invocationsStream: string;
  invocationsOf(trigger: string): string;
  readonly invocationsAll: string;
  /** JetStream KV bucket `<p>_leases`: who reads the replication slot. */
  readonly leasesBucket: string;
  /** JetStream KV bucket `<p>_rate_limits`: requests per client and minute, counted cluster-wide. */
  readonly rateLimitsBucket: string;
}

export function subjectsFor(prefix: string): Subjects {
  return {
    prefix,
    query: `${prefix}.query`,
    graphql: `${prefix}.graphql`,
    health: `${prefix}.health`,
    subscriptionPlan: `${prefix}.graphql.subscription_plan`,
    subscriptions: (instance, verb) => `${prefix}.subscriptions.${instance}.${verb}`,
    edgeDeliver: (instance) => `${prefix}.edge.${instance}.deliver`,
    changesTables: `${prefix}.changes.tables`,
    changesWanted: `${prefix}.changes.wanted`,
    authResolve: `${prefix}.auth.resolve`,
    metadataChanged: `${prefix}.metadata.changed`,
    requestCancel: `${prefix}.requests.cancel`,
    monitorPing: `${prefix}.monitor.ping`,
    heartbeat: (actor, instance) => `${prefix}.monitor.heartbeat.${actor}.${instance}`,
    heartbeatAll: `${prefix}.monitor.heartbeat.>`,
    monitorEvent: (kind) => `${prefix}.monitor.events.${kind}`,
    monitorEventAll: `${prefix}.monitor.events.>`,
    queueOf: (subject) => `q.${subject}`,
    remote: (verb) => `${prefix}.remote.${verb}`,
    triggers: (verb) => `${prefix}.triggers.${verb}`,
    triggersInFlight: `${prefix}.triggers.in_flight`,
    eventsStream: `${prefix.toUpperCase()}_EVENTS`,
    eventsOf: (trigger) => `${prefix}.events.${trigger}`,
    eventsAll: `${prefix}.events.>`,
    eventsConsumer: `${prefix.toUpperCase()}_EVENTS_DELIVERY`,
    invocationsStream: `${prefix.toUpperCase()}_INVOCATIONS`,
    invocationsOf: (trigger) => `${prefix}.invocations.${trigger}`,
    invocationsAll: `${prefix}.invocations.>`,
    leasesBucket: `${prefix}_leases`,
    rateLimitsBucket: `${prefix}_rate_limits`,
  };
}
