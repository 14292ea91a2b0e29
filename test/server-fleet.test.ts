/**
 * What a replica of a fleet adds to `/v1/score`, over the app (no sockets): idempotent requests by
 * `X-Rewardkit-Request-Id`, `/readyz` (held groups: test/server-groups.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../src/server/app.js";
import { createContext } from "../src/server/context.js";
import { resolveOptions } from "../src/server/options.js";
import { createScorer } from "../src/engine/scorer.js";
import { parseSpec } from "../src/spec/load.js";

const spec = parseSpec("name: fleet\ncomponents: [{name: correct, type: exact}]\n", "fleet.yaml");
const scorer = createScorer(spec, { concurrency: 1 });
const ctx = createContext(spec, scorer, resolveOptions({}));
const app = createApp(ctx);
afterAll(() => scorer.close());

interface Result {
  id: string;
  reward: number | null;
  error?: { field: string; message: string };
}

async function post(body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request("/v1/score", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { res, json: (await res.json()) as { results: Result[] } };
}

describe("idempotent /v1/score", () => {
  it("a retry with the same X-Rewardkit-Request-Id gets the same answer, replayed, and scores nothing", async () => {
    const body = { rollouts: [{ id: "r", group: "q", completion: "7", reference: "7" }] };
    const first = await post(body, { "X-Rewardkit-Request-Id": "req-1" });
    const scored = ctx.metrics.rolloutsScored;
    const before = scored.render();
    const again = await post(body, { "X-Rewardkit-Request-Id": "req-1" });
    expect(again.res.headers.get("x-rewardkit-replayed")).toBe("true");
    expect(again.json).toEqual(first.json);
    expect(scored.render()).toBe(before);
    const other = await post({ rollouts: [] }, { "X-Rewardkit-Request-Id": "req-1" });
    expect(other.res.status).toBe(409);
    const bad = await post(body, { "X-Rewardkit-Request-Id": "a b" });
    expect(bad.res.status).toBe(400);
  });
});

describe("/readyz", () => {
  it("ready until shutdown starts (then 503 while /healthz still answers 200 until draining)", async () => {
    const s2 = createScorer(spec, { concurrency: 1 });
    const c2 = createContext(spec, s2, resolveOptions({}));
    const a2 = createApp(c2);
    expect((await a2.request("/readyz")).status).toBe(200);
    c2.ready = false;
    expect((await a2.request("/readyz")).status).toBe(503);
    expect((await a2.request("/healthz")).status).toBe(200);
    await s2.close();
  });
});
