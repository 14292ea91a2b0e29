/**
 * The training step of a request, for schedules. Trainers that know their step send it as a `step` field of the
 * body or as the `X-Rewardkit-Step` header (the Python client sets both ways from TRL's `trainer_state.global_step`
 * and verl's `extra_info["global_steps"]`). A rollout's own `step` wins over the request's; the body's `step` wins
 * over the header. A spec with schedules that receives a request leaving some rollout without a step scores it at
 * step 0: the server counts such requests in `rewardkit_requests_without_step_total{route}` and writes one warning
 * on stderr (once per server), since a weight ramp that never moves is otherwise silent.
 */
import type { Context } from "hono";
import type { ServerContext } from "./context.js";

/** Header carrying the training step (case-insensitive, a non-negative integer). */
export const STEP_HEADER = "X-Rewardkit-Step";

/** A non-negative integer, or undefined for anything else. */
function stepValue(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === "string" && /^\s*\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/**
 * The request's step: the body's `step` field, else the {@link STEP_HEADER} header, else none.
 * @param bodyStep the body's `step` (undefined or null when absent): a non-negative integer; the header may also
 *   be a decimal string of one.
 * @returns `{step}` (step undefined when neither is given), or `{error}` naming the field for a bad value.
 */
export function requestStep(c: Context, bodyStep: unknown): { step: number | undefined } | { error: string } {
  if (bodyStep !== undefined && bodyStep !== null) {
    if (typeof bodyStep !== "number" || stepValue(bodyStep) === undefined)
      return { error: `step: expected a non-negative integer, got ${JSON.stringify(bodyStep)}` };
    return { step: bodyStep };
  }
  const h = c.req.header(STEP_HEADER);
  if (h === undefined || h.trim() === "") return { step: undefined };
  const s = stepValue(h);
  if (s === undefined)
    return { error: `${STEP_HEADER} header: expected a non-negative integer, got ${JSON.stringify(h)}` };
  return { step: s };
}

/**
 * Records a scoring request for a spec with schedules where `missing` rollouts (of `total`) reached the scorer
 * without any step (they score at step 0). No-op for specs without schedules or when nothing is missing.
 * Counts the request in `rewardkit_requests_without_step_total{route}`; the first such request of the server's
 * life writes one warning line (`write`, stderr by default).
 */
export function noteMissingStep(
  ctx: ServerContext,
  route: string,
  missing: number,
  total: number,
  write: (line: string) => void = (l) => process.stderr.write(l),
): void {
  if (ctx.spec.schedules.length === 0 || missing === 0) return;
  ctx.metrics.requestsWithoutStep.inc({ route });
  if (ctx.stepWarned) return;
  ctx.stepWarned = true;
  const paths = ctx.spec.schedules.map((s) => s.path).join(", ");
  write(
    `rewardkit serve: warning: spec "${ctx.spec.name}" has schedules (${paths}) but ${route} got ${missing} of ${total} rollouts without a training step; ` +
      `they score at step 0. Send "step" in the body, the ${STEP_HEADER} header, or a per-rollout "step" ` +
      `(TRL and verl pass it through clients/python/rewardkit_client.py). Counted in rewardkit_requests_without_step_total; this warning is printed once.\n`,
  );
}
