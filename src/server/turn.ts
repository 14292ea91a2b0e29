/**
 * Request coalescing on the event loop: scoring waits for the check phase of the current loop iteration, so every
 * request read from the sockets in one poll phase is scored together, back to back, instead of each request running
 * parse → score → answer before the next socket is even read.
 *
 * Why: a trainer that calls the reward per sample (verl's reward function, the group barrier's one-rollout requests)
 * sends many small requests at once. Scored one by one between HTTP parsing and response writing, each rollout's
 * verification ran on cold CPU caches and cost about 2.3× its cost in a batch (perf, `npm run bench:server`, batch 1
 * at 16 in flight). Interleaving phases across the requests that are ready together brings the per-rollout scoring
 * cost back to the batch figure; see docs/server.md ("Small requests").
 *
 * Every caller in one poll phase shares one promise, so their continuations run in one microtask drain in arrival
 * order. It delays a request by one loop turn (microseconds), never by a timer.
 */
let turn: Promise<void> | undefined;

/** Resolves in the check phase of this event-loop iteration (one `setImmediate` shared by every caller until then). */
export function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));
}
