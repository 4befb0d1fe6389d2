/**
 * Every NATS subject the engine uses, built from the cluster's prefix. Nothing else in
 * the code spells a subject: find an actor's subjects here, and in the README's table.
 */
export interface Subjects {
  readonly prefix: string;
  /** request, queue group: schema actor. `{session, operation}` -> operation result. */
  readonly query: string;
  /** request, queue group: schema actor. `{headers, body}` -> GraphQL response bytes. */
  readonly graphql: string;
  /** request, queue group: schema actor. `{}` -> `{status, inconsistent}` for /healthz. */
  readonly health: string;
  /** request, queue group: auth actor. `{headers}` -> session `{role, variables}`. */
  readonly authResolve: string;
  /** broadcast: the schema actor committed a new metadata `resource_version`. */
  readonly metadataChanged: string;
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
  /** request, queue group: functions actor. `verb` is describe_function or describe_computed_field. */
  functions(verb: string): string;
  /** request, queue group: remote-schema actor. `verb` is introspect, validate_permission or execute. */
  remote(verb: string): string;
  /** request, queue group: triggers actor. `verb` is invoke, redeliver, event_logs, invocation_logs or event_by_id. */
  triggers(verb: string): string;
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
}

export function subjectsFor(prefix: string): Subjects {
  return {
    prefix,
    query: `${prefix}.query`,
    graphql: `${prefix}.graphql`,
    health: `${prefix}.health`,
    authResolve: `${prefix}.auth.resolve`,
    metadataChanged: `${prefix}.metadata.changed`,
    monitorPing: `${prefix}.monitor.ping`,
    heartbeat: (actor, instance) => `${prefix}.monitor.heartbeat.${actor}.${instance}`,
    heartbeatAll: `${prefix}.monitor.heartbeat.>`,
    monitorEvent: (kind) => `${prefix}.monitor.events.${kind}`,
    monitorEventAll: `${prefix}.monitor.events.>`,
    queueOf: (subject) => `q.${subject}`,
    functions: (verb) => `${prefix}.functions.${verb}`,
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
  };
}
