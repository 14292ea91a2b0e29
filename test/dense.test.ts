/**
 * Dense rewards end to end on real recorded log-probs (examples/data/dense-rollouts.jsonl: one token sequence under
 * two servings of a model, TGI snapshots): `rewardkit score` with examples/dense.yaml, then the same rollouts through
 * the server's `/v1/score`. Token rewards, scores and token advantages are checked against the formulas.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import type { RunningServer } from "../src/server/index.js";
import { loadSpec } from "../src/spec/load.js";
import { ROOT, cli, readJsonl, tmp } from "./helpers.js";

interface Component {
  score: number | null;
  status: string;
  reason?: string;
  token_rewards?: number[];
  details?: Record<string, unknown>;
}
interface Row {
  id: string;
  group: string;
  completion_ids: number[];
  student_logprobs: number[];
  teacher_logprobs: number[];
  policy_logprobs: number[];
  ref_logprobs: number[];
}
interface Scored extends Row {
  reward: number | null;
  advantage: number | null;
  components: Record<string, Component>;
  token_advantages?: number[] | null;
  token_advantages_error?: string;
}

const DATA = join(ROOT, "examples/data/dense-rollouts.jsonl");
const SPEC = join(ROOT, "examples/dense.yaml");
const input = readJsonl<Row>(DATA);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12;

function checkRow(row: Row, s: Scored) {
  const teacher = s.components.teacher!;
  const want = row.student_logprobs.map((ls, t) => row.teacher_logprobs[t]! - ls);
  expect(teacher.token_rewards).toHaveLength(row.completion_ids.length);
  teacher.token_rewards!.forEach((x, t) => expect(close(x, want[t]!)).toBe(true));
  expect(close(teacher.score!, want.reduce((a, b) => a + b, 0) / want.length)).toBe(true);
  const implicit = s.components.implicit!;
  implicit.token_rewards!.forEach((x, t) =>
    expect(close(x, 0.05 * (row.policy_logprobs[t]! - row.ref_logprobs[t]!))).toBe(true),
  );
  expect(s.reward).toBe(teacher.score); // implicit has weight 0
  expect(s.token_advantages).toHaveLength(want.length);
  s.token_advantages!.forEach((a, t) => expect(close(a, s.advantage! + teacher.token_rewards![t]!)).toBe(true));
}

describe("dense rewards on real log-probs: rewardkit score", () => {
  let out: Scored[];
  beforeAll(() => {
    const dir = tmp();
    const res = cli(["score", DATA, "--spec", SPEC, "-o", join(dir, "out.jsonl")]);
    expect(res.code, res.stderr).toBe(0);
    out = readJsonl<Scored>(join(dir, "out.jsonl"));
  });

  it("52 rollouts, 560 tokens: token rewards, scores and token advantages as the formulas say", () => {
    expect(out).toHaveLength(52);
    out.forEach((s, k) => checkRow(input[k]!, s));
    // the servings differ: not every token agrees (a real signal, not zeros)
    expect(out.flatMap((s) => s.components.teacher!.token_rewards!).filter((x) => x !== 0).length).toBeGreaterThan(100);
  });

  it("a bad line is unscorable with its reason, the others are scored; a malformed field names file:line:field", () => {
    const dir = tmp();
    const lines = [
      { ...input[0], id: "short", student_logprobs: input[0]!.student_logprobs.slice(1) },
      { ...input[1], id: "nolp", teacher_logprobs: undefined },
      { ...input[2], id: "bad", teacher_logprobs: [-1, "x"] },
      input[3],
    ];
    const res = cli(
      ["score", "-", "--spec", SPEC, "-o", join(dir, "out.jsonl")],
      lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/<stdin>:3 teacher_logprobs\[1\]: expected a number, got string/);
    const o = readJsonl<Scored>(join(dir, "out.jsonl"));
    expect(o.map((r) => r.id)).toEqual(["short", "nolp", input[3]!.id]);
    expect(o[0]!.components.teacher).toMatchObject({ score: null, reason: "length_mismatch" });
    expect(o[0]!.components.teacher!.token_rewards).toBeUndefined();
    expect(o[0]!).toMatchObject({ token_advantages: null });
    expect(o[0]!.token_advantages_error).toMatch(/^teacher has no token_rewards \(unscorable: length_mismatch\)/);
    expect(o[1]!.components.teacher).toMatchObject({ score: null, reason: "logprob_error" });
  });
});

describe("dense rewards on real log-probs: POST /v1/score", () => {
  let srv: RunningServer;
  let cliOut: Scored[];
  beforeAll(async () => {
    srv = await startServer(loadSpec(SPEC), { port: 0, concurrency: 1 });
    const dir = tmp();
    expect(cli(["score", DATA, "--spec", SPEC, "-o", join(dir, "out.jsonl")]).code).toBe(0);
    cliOut = readJsonl<Scored>(join(dir, "out.jsonl"));
  });
  afterAll(async () => {
    await srv.shutdown();
  });
  const score = async (body: unknown) => {
    const res = await fetch(`${srv.url}/v1/score`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { results: Scored[] }).results;
  };

  it("the same rollouts in one request: the same token rewards, scores and token advantages as the CLI", async () => {
    const results = await score({ rollouts: input });
    expect(results).toHaveLength(52);
    results.forEach((r, k) => {
      checkRow(input[k]!, r);
      expect(r.components.teacher!.token_rewards).toEqual(cliOut[k]!.components.teacher!.token_rewards);
      expect(r.advantage).toBe(cliOut[k]!.advantage); // one request holds every group whole: the same GRPO
      expect(r.token_advantages).toEqual(cliOut[k]!.token_advantages);
    });
  });

  it('"details": false keeps token_rewards (a result, not a diagnostic); a mismatch is unscorable in place', async () => {
    const [a, b] = await score({
      rollouts: [input[0], { ...input[1], id: "short", teacher_logprobs: [-1] }],
      details: false,
    });
    expect(a!.components.teacher!.details).toBeUndefined();
    expect(a!.components.teacher!.token_rewards).toHaveLength(input[0]!.completion_ids.length);
    expect(b!.components.teacher).toEqual({ score: null, status: "unscorable", reason: "length_mismatch" });
  });
});
