import { specHealth } from "../engine/health.js";
import type { HealthProblem } from "../engine/health.js";
import type { ServerContext } from "./context.js";

/** How long `/readyz` waits for the host checks before it answers 503 `starting` (they run at server start). */
export const READYZ_WAIT_MS = 2000;

/**
 * The host checks of the served spec (every route's, for a routed spec): the code sandbox's self-test per
 * language and reference kind. Cached per process by the verifiers (a failure is tried again after 30 s), so
 * `/readyz` calls this every time.
 */
export async function serverHealth(ctx: ServerContext): Promise<HealthProblem[]> {
  if (!ctx.routed) return specHealth(ctx.spec);
  const all = await Promise.all([...ctx.routed.spec.routes].map(([key, spec]) => specHealth(spec, `${key}/`)));
  return all.flat();
}

/** `serverHealth` if it settles within `ms`, else undefined (still running). */
export async function healthWithin(ctx: ServerContext, ms = READYZ_WAIT_MS): Promise<HealthProblem[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([serverHealth(ctx), late]);
  } finally {
    clearTimeout(timer);
  }
}
