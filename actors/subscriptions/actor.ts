import type { Actor } from '../../src/actor/actor.js';
import { Bus, JsonReply } from '../../src/bus/bus.js';
import type { ChangeFeedWanted, ChangeNotice, ConnectionClosed, Delivery, SubscriptionPlanReply, SubscriptionPlanRequest, SubscriptionStart, SubscriptionStartReply, SubscriptionStop } from '../../src/bus/messages/subscriptions.js';
import { SUBSCRIPTIONS_VERBS } from '../../src/bus/subjects.js';
import { graphqlErrorBody } from '../../src/errors/bodies.js';
import { errors } from '../../src/errors/errors.js';
import { createPool } from '../../src/pg/pool.js';
import { validate } from '../../src/schemas/validator.js';
import { ChangeFeed } from './change-feed.js';
import { Connections } from './connections.js';
import { CohortFetcher } from './fetcher.js';
import type { Subscription } from './model.js';
import { Pollers } from './pollers.js';
import { publishedTables } from './published-tables.js';

/** How often the feed's liveness is checked, and the slot asked for while it is wanted. */
const FEED_CHECK_MS = 1_000;
const FEED_WANTED_MS = 2_000;
/** Plans asked at once when a metadata change makes every subscription be planned again. */
const REPLAN_CONCURRENCY = 32;
/** A plan from a schema actor that has not caught up with a metadata change is asked again after this. */
const REPLAN_RETRY_MS = 100;
const REPLAN_ATTEMPTS = 50;

/**
 * The subscriptions actor (ARCHITECTURE "subscriptions"): the subscriptions of the
 * sockets of this instance's edge, their cohorts and pollers, and the change feed that
 * tells the pollers when to fetch. It asks the schema actor for each subscription's plan,
 * runs the cohorts' statements itself, and hands results to this instance's edge.
 */
export const subscriptionsActor: Actor = {
  name: 'subscriptions',
  async start(context) {
    const { bus, config, log, instance } = context;
    const subjects = bus.subjects;
    const pool = createPool(config.databaseUrl!, { max: config.pgConnections, applicationName: `service-graphql-subscriptions-${instance}`, statementTimeoutMs: config.statementTimeout * 1000, jit: config.pgJit });
    const fetcher = new CohortFetcher(pool);
    const deliver = (delivery: Delivery) => {
      bus.ask(subjects.edgeDeliver(instance), delivery, { requestId: Bus.newRequestId(), timeoutMs: config.busTimeoutMs }).catch((error: unknown) => {
        log.warn({ err: error }, 'a subscription result could not be handed to the edge');
      });
    };
    const pollers = new Pollers({
      fetcher,
      deliver,
      batchSize: { live: config.liveQueriesBatchSize, stream: config.streamingQueriesBatchSize },
      refetchDelayMs: { live: config.liveQueriesRefetchDelay * 1000, stream: config.streamingQueriesRefetchDelay * 1000 },
      coalesceMs: config.liveQueriesCoalesceMs,
      log,
    });
    const connections = new Connections();
    const feed = new ChangeFeed();
    let published = await publishedTables(pool);
    /**
     * The publication's members are read again after a metadata change only while some
     * subscription may follow them, else when the next one starts: at thousands of tracked
     * tables the read is over ten milliseconds of the database's time on every operation.
     */
    let publishedStale = false;
    const feedLive = () => config.liveQueriesChangeFeed && feed.live(performance.now());
    // Reads may overlap (a subscription's catch-up beside a replanning): a read's members
    // stand unless a read started after it already gave its own, and a failed read leaves
    // the members to read again.
    let publishedReads = 0;
    let publishedApplied = 0;
    const refreshPublished = async () => {
      publishedStale = false;
      const read = ++publishedReads;
      const members = await publishedTables(pool).catch(() => null);
      if (members === null) {
        if (read === publishedReads) publishedStale = true;
        return;
      }
      if (read <= publishedApplied) return;
      publishedApplied = read;
      published = members;
    };
    const catchUpPublished = async () => {
      if (!publishedStale) return;
      await refreshPublished();
      pollers.setFeed(feedLive(), published);
    };

    const plan = (subscription: Pick<Subscription, 'session' | 'query' | 'variables' | 'operationName'>, requestId: string) =>
      bus.request<SubscriptionPlanReply>(
        subjects.subscriptionPlan,
        { session: subscription.session, query: subscription.query, variables: subscription.variables, operationName: subscription.operationName } satisfies SubscriptionPlanRequest,
        { requestId, timeoutMs: config.busTimeoutMs },
      );
    const end = (subscription: Subscription, errorsBody: string) => {
      pollers.remove(subscription);
      connections.remove(subscription);
      deliver({ kind: 'error', targets: [[subscription.connection, subscription.id]], payload: errorsBody });
    };

    context.serve(subjects.subscriptions(instance, SUBSCRIPTIONS_VERBS.start), async (request) => {
      const message = validate<SubscriptionStart>('bus/subscription-start', request.json());
      if (connections.count(message.connection) >= config.websocketMaxSubscriptions) {
        return new JsonReply({ ok: false, errors: errorsText(errors.subscriptionLimit('$', config.websocketMaxSubscriptions)) } satisfies SubscriptionStartReply);
      }
      const opened = connections.opening(message.connection);
      try {
        await catchUpPublished();
        const reply = await plan(message, request.requestId);
        if (!reply.ok) return new JsonReply(reply satisfies SubscriptionStartReply);
        const subscription: Subscription = { ...message, cohort: null, lastSent: null };
        // The socket closed while its plan was made: nothing to serve.
        if (!connections.add(opened, subscription)) return new JsonReply({ ok: true } satisfies SubscriptionStartReply);
        pollers.add(subscription, reply);
        // A metadata change while it was planned may have left the members to read.
        await catchUpPublished();
        return new JsonReply({ ok: true } satisfies SubscriptionStartReply);
      } finally {
        connections.settled(opened);
      }
    });

    context.serve(subjects.subscriptions(instance, SUBSCRIPTIONS_VERBS.stop), async (request) => {
      const message = validate<SubscriptionStop>('bus/subscription-stop', request.json());
      const subscription = connections.find(message.connection, message.id);
      if (subscription !== undefined) {
        pollers.remove(subscription);
        connections.remove(subscription);
      }
      return new JsonReply({});
    });

    context.serve(subjects.subscriptions(instance, SUBSCRIPTIONS_VERBS.close), async (request) => {
      const message = validate<ConnectionClosed>('bus/subscription-close', request.json());
      for (const subscription of connections.close(message.connection)) pollers.remove(subscription);
      return new JsonReply({});
    });

    // A metadata change may change any subscription's statement or permissions: each is
    // planned again, moved if its plan moved, ended if it is refused now.
    let replanning: Promise<void> = Promise.resolve();
    const replan = (version: number) => {
      replanning = replanning.then(async () => {
        const all = connections.all();
        if (all.length === 0) {
          publishedStale = true;
          return;
        }
        await refreshPublished();
        pollers.setFeed(feedLive(), published);
        for (let start = 0; start < all.length; start += REPLAN_CONCURRENCY) {
          await Promise.all(all.slice(start, start + REPLAN_CONCURRENCY).map((subscription) => replanOne(subscription, version)));
        }
      }).catch((error: unknown) => log.error({ err: error }, 'planning subscriptions again after a metadata change failed'));
    };
    const replanOne = async (subscription: Subscription, version: number) => {
      let reply = await plan(subscription, Bus.newRequestId());
      for (let attempt = 0; reply.ok && reply.resource_version < version && attempt < REPLAN_ATTEMPTS; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, REPLAN_RETRY_MS));
        reply = await plan(subscription, Bus.newRequestId());
      }
      if (connections.find(subscription.connection, subscription.id) !== subscription) return;
      if (!reply.ok) return end(subscription, reply.errors);
      const cohort = subscription.cohort;
      if (cohort !== null && cohort.poller.sql === reply.sql && (reply.cursor !== null || cohort.key === JSON.stringify(reply.values))) return;
      pollers.remove(subscription);
      pollers.add(subscription, reply);
    };
    context.listen<{ resource_version: number }>(subjects.metadataChanged, (message) => replan(message.resource_version));

    context.listen<ChangeNotice>(subjects.changesTables, (message) => {
      if (!config.liveQueriesChangeFeed) return;
      const notice = validate<ChangeNotice>('bus/change-notice', message);
      const now = performance.now();
      const reaction = feed.heard(notice, now);
      pollers.setFeed(true, published);
      if (reaction.refreshAll) pollers.refreshAll();
      else pollers.tablesChanged(reaction.tables);
    });
    const feedCheck = setInterval(() => pollers.setFeed(feedLive(), published), FEED_CHECK_MS);
    feedCheck.unref();
    const wanted = setInterval(() => {
      if (config.liveQueriesChangeFeed && pollers.wantsFeed) bus.publish(subjects.changesWanted, { instance } satisfies ChangeFeedWanted);
    }, FEED_WANTED_MS);
    wanted.unref();

    context.reportGauges(() => ({ subscribed_sockets: connections.size, subscriptions: connections.subscriptions, change_feed_live: feed.live(performance.now()), ...pollers.gauges() }));

    return {
      async stop() {
        clearInterval(feedCheck);
        clearInterval(wanted);
        pollers.stop();
        await replanning;
        await pool.end();
      },
    };
  },
};

function errorsText(error: ReturnType<typeof errors.subscriptionLimit>): string {
  return Buffer.from(graphqlErrorBody([error])).toString('utf8');
}
