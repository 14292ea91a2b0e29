import type { CurriculumTracker } from "../curriculum/tracker.js";
import type { Scorer } from "../engine/scorer.js";
import type { CompiledSpec } from "../spec/types.js";
import { Admission } from "./admission.js";
import { BodyBudget } from "./limits.js";
import { Counter, Gauge, Histogram, Registry } from "./metrics.js";
import type { ServerOptions } from "./options.js";
import type { RoutedScorer } from "../engine/routes.js";
import type { RoutedSpec } from "../spec/routes.js";
import { Idempotency } from "./idempotency.js";
import { StoreGuard } from "../store/guard.js";
import { MemoryStore } from "../store/memory.js";
import { createHeldGroups } from "./held-groups.js";
import type { HeldGroups } from "./held-groups.js";

/** What a routed server holds: the routed spec and, per route, a context whose `spec` and `scorer` are the route's. */
export interface RoutedServing {
  spec: RoutedSpec;
  scorer: RoutedScorer;
  routes: Map<string, ServerContext>;
}

/** Everything a route handler needs: the spec, its scorer, the limits, admission and metrics. */
export interface ServerContext {
  spec: CompiledSpec;
  scorer: Scorer;
  options: ServerOptions;
  admission: Admission;
  /** Requests with a body and their bytes in flight (admitted before the body is read). */
  bodies: BodyBudget;
  metrics: ServerMetrics;
  /** Set on SIGTERM: new work is refused with 503 while in-flight work finishes. */
  draining: boolean;
  /** Cleared on SIGTERM (before draining, for `shutdownDelayMs`): `/readyz` answers 503 so balancers stop sending. */
  ready: boolean;
  /** The fleet's shared store (`--store`), through its guard; undefined for a server on its own. */
  store?: StoreGuard;
  /** Answers of requests that carry `X-Rewardkit-Request-Id` (in the store when there is one). */
  records: Idempotency;
  /** Set once the "scheduled spec, request without a step" warning has been written (it is written once). */
  stepWarned?: boolean;
  /**
   * The group barrier: rollouts with `group_size` wait here for the rest of their group (shared by a routed server's
   * route contexts; keys carry the route's spec hash). See src/server/held-groups.ts.
   */
  groups: HeldGroups;
  /** A routed spec's routes (src/server/routes.ts); `spec` is then the routed spec's envelope (name, hash). */
  routed?: RoutedServing;
  /** Per-prompt statistics, `filter: dapo`, `replay:` (src/server/curriculum.ts); undefined for a routed server. */
  curriculum?: CurriculumTracker;
  /** Set when a batch changed the state since `--state` was last written. */
  stateDirty?: boolean;
}

export interface ServerMetrics {
  registry: Registry;
  requests: Counter;
  latency: Histogram;
  rolloutsScored: Counter;
  rolloutErrors: Counter;
  unscorable: Counter;
  rolloutTimeouts: Counter;
  promptNotFound: Counter;
  emptyResponse: Counter;
  clientAborted: Counter;
  requestsWithoutStep: Counter;
  /** Requests answered 503 because their groups would not fit in the barrier's bounds. */
  groupsRefused: Counter;
}

/** Latency buckets, seconds: 1 ms … 60 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function createMetrics(
  spec: CompiledSpec,
  scorer: Scorer,
  admission: Admission,
  bodies: BodyBudget,
  records: Idempotency,
  store: StoreGuard | undefined,
  groups: HeldGroups,
): ServerMetrics {
  const registry = new Registry();
  const m: ServerMetrics = {
    registry,
    requests: registry.add(new Counter("rewardkit_requests_total", "HTTP requests by route and status code.")),
    latency: registry.add(
      new Histogram("rewardkit_request_duration_seconds", "HTTP request latency by route, seconds.", LATENCY_BUCKETS),
    ),
    rolloutsScored: registry.add(
      new Counter("rewardkit_rollouts_scored_total", "Rollouts scored (invalid rollouts not included)."),
    ),
    rolloutErrors: registry.add(
      new Counter("rewardkit_rollout_errors_total", "Rollouts answered with an error entry (invalid input)."),
    ),
    unscorable: registry.add(
      new Counter("rewardkit_unscorable_total", "Unscorable component verdicts by component and reason."),
    ),
    rolloutTimeouts: registry.add(
      new Counter(
        "rewardkit_rollout_deadline_exceeded_total",
        "Rollouts that passed the server's per-rollout deadline.",
      ),
    ),
    promptNotFound: registry.add(
      new Counter(
        "rewardkit_openrlhf_prompt_not_found_total",
        "OpenRLHF queries whose prompt was not found in the query (response located by assistant header or not at all).",
      ),
    ),
    emptyResponse: registry.add(
      new Counter(
        "rewardkit_openrlhf_empty_response_total",
        "OpenRLHF queries whose recovered response is empty (a recovery failure: scored as an empty completion), by how the response was located.",
      ),
    ),
    clientAborted: registry.add(
      new Counter(
        "rewardkit_client_aborted_total",
        "Requests whose client closed the connection before the answer was written, by route and phase (body: before the body was complete; answer: while it was scored or answered).",
      ),
    ),
    requestsWithoutStep: registry.add(
      new Counter(
        "rewardkit_requests_without_step_total",
        "Scoring requests to a spec with schedules that left some rollout without a training step (scored at step 0), by route.",
      ),
    ),
    groupsRefused: registry.add(
      new Counter(
        "rewardkit_group_requests_refused_total",
        "Requests answered 503 because the rollouts waiting for their groups were at the bound (--group-max-waiting).",
      ),
    ),
  };
  registry.add(
    new Gauge(
      "rewardkit_groups_waiting",
      "Groups (rollouts with group_size) waiting for the rest of their members.",
      () => groups.groupsWaiting,
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_group_members_waiting",
      "Rollouts waiting for the rest of their group.",
      () => groups.membersWaiting,
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_group_bytes_waiting",
      "Approximate bytes of the rollouts waiting for the rest of their group.",
      () => groups.bytesWaiting,
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_groups_ended_total",
      "Groups (rollouts with group_size) that ended, by outcome: complete, or partial (still short after --group-wait-ms).",
      () => [
        { labels: { outcome: "complete" }, value: groups.completed },
        { labels: { outcome: "partial" }, value: groups.partial },
      ],
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_requests_in_flight",
      "Requests with a body admitted and not yet answered.",
      () => bodies.inFlight,
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_body_bytes_in_flight",
      "Request-body bytes held by admitted requests.",
      () => bodies.bytesInFlight,
    ),
  );
  registry.add(new Gauge("rewardkit_queue_depth", "Rollouts admitted and not yet answered.", () => admission.depth));
  registry.add(
    new Gauge("rewardkit_queue_capacity", "Most rollouts admitted at once (beyond it: 429).", () => admission.capacity),
  );
  registry.add(
    new Gauge(
      "rewardkit_cache_hits_total",
      "Verdict cache hits in this process.",
      () => scorer.stats().cacheHits,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_cache_misses_total",
      "Verdict cache misses in this process.",
      () => scorer.stats().cacheMisses,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_store_cache_hits_total",
      "Verdicts found in the shared store after a miss in this process (0 without --store).",
      () => scorer.stats().sharedHits,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_store_cache_misses_total",
      "Shared-store verdict lookups that found nothing (0 without --store).",
      () => scorer.stats().sharedMisses,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_requests_replayed_total",
      "Requests with X-Rewardkit-Request-Id answered from their record (a retry), not scored again.",
      () => records.replays,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_requests_joined_total",
      "Requests with X-Rewardkit-Request-Id that arrived while the same request was being scored, and waited for its answer.",
      () => records.joins,
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_store_up",
      "1 when the shared store answered the last operation, 0 when degraded to local state (absent without --store).",
      () => (store ? [{ labels: { store: store.store.description }, value: store.health.degraded ? 0 : 1 }] : []),
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_store_errors_total",
      "Shared-store operations that failed (the replica used local state instead), by operation.",
      () => (store ? Object.entries(store.health.errors).map(([op, value]) => ({ labels: { op }, value })) : []),
      "counter",
    ),
  );
  registry.add(
    new Gauge(
      "rewardkit_store_seconds_total",
      "Seconds spent waiting on the shared store (every operation).",
      () => store?.health.seconds ?? 0,
      "counter",
    ),
  );
  registry.add(
    new Gauge("rewardkit_cache_hit_ratio", "Verdict cache hits / lookups since start (0 before any lookup).", () => {
      const s = scorer.stats();
      const n = s.cacheHits + s.cacheMisses;
      return n === 0 ? 0 : s.cacheHits / n;
    }),
  );
  registry.add(new Gauge("rewardkit_cache_entries", "Verdicts held in the cache.", () => scorer.stats().cacheSize));
  registry.add(
    new Gauge("process_resident_memory_bytes", "Resident set size, bytes.", () => process.memoryUsage.rss()),
  );
  registry.add(new Gauge("nodejs_heap_used_bytes", "V8 heap in use, bytes.", () => process.memoryUsage().heapUsed));
  registry.add(
    new Gauge("rewardkit_spec_info", "The served spec (value 1).", () => [
      { labels: { name: spec.name, hash: spec.hash }, value: 1 },
    ]),
  );
  return m;
}

/**
 * What every route handler shares: the compiled spec, its scorer (worker pool, verdict cache), the limits, the
 * admission queue (`maxQueue` rollouts at once; beyond it 429), the request records, the fleet's store (if any) and
 * the Prometheus metrics registry.
 */
export function createContext(
  spec: CompiledSpec,
  scorer: Scorer,
  options: ServerOptions,
  shared: { store?: StoreGuard; records?: Idempotency } = {},
): ServerContext {
  const { store } = shared;
  const records =
    shared.records ??
    new Idempotency(store ?? new StoreGuard(new MemoryStore()), spec.hash, { ttlMs: options.requestTtlMs });
  const admission = new Admission(options.maxQueue);
  const bodies = new BodyBudget(options.maxRequests, options.maxInflightBytes);
  const groups = createHeldGroups(options);
  return {
    spec,
    scorer,
    options,
    admission,
    bodies,
    metrics: createMetrics(spec, scorer, admission, bodies, records, store, groups),
    groups,
    draining: false,
    ready: true,
    records,
    ...(store ? { store } : {}),
  };
}
