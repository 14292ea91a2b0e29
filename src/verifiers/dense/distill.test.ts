import { afterEach, describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { startReplay } from "../../client/replay.test-helper.js";
import type { ReplayServer } from "../../client/replay.test-helper.js";
import { distillTokenRewards, distillVerifier } from "./distill.js";

const run = async (rollout: Partial<Rollout>, options: Record<string, unknown> = {}): Promise<ComponentResult> => {
  const fn = distillVerifier.create(distillVerifier.options.parse(options));
  return fn({ completion: "", reference: undefined, rollout: { id: "a", group: "g", completion: "", ...rollout } });
};

describe("distill: −(log π_s − log π_t) per token, by hand", () => {
  const base = { completion_ids: [1, 2, 3], student_logprobs: [-1, -2, -0.5], teacher_logprobs: [-0.5, -3, -0.5] };

  it("token_rewards [0.5, −1, 0], score = mean = −1/6; sum −0.5", async () => {
    const r = await run(base);
    expect(r).toMatchObject({ status: "ok", score: -1 / 6, token_rewards: [0.5, -1, 0] });
    expect(r.details).toMatchObject({ tokens: 3, reverse_kl: 1 / 6 });
    expect((await run(base, { score: "sum" })).score).toBe(-0.5);
  });

  it("clip: each token reward to [−c, c] (verl's loss_max_clamp), the score from the clipped rewards", async () => {
    const r = await run(base, { clip: 0.25 });
    expect(r.token_rewards).toEqual([0.25, -0.25, 0]);
    expect(r.score).toBe(0);
    expect(r.details).toMatchObject({ clipped: 2 });
    expect(distillTokenRewards([-0.1], [-0.1])).toEqual([0]); // no −0
  });

  it("missing log-probs: unscorable logprob_error, never 0", async () => {
    expect(await run({ completion_ids: [1], student_logprobs: [-1] })).toMatchObject({
      score: null,
      status: "unscorable",
      reason: "logprob_error",
      details: { field: "teacher_logprobs", error: "missing" },
    });
    expect((await run({ teacher_logprobs: [-1] })).reason).toBe("logprob_error");
  });

  it("lengths that differ from each other or from completion_ids: length_mismatch, never truncated", async () => {
    expect(await run({ ...base, student_logprobs: [-1, -2] })).toMatchObject({
      score: null,
      reason: "length_mismatch",
      details: { lengths: { student_logprobs: 2, teacher_logprobs: 3, completion_ids: 3 } },
    });
    expect((await run({ ...base, completion_ids: [1, 2, 3, 4] })).reason).toBe("length_mismatch");
    // without completion_ids only the two arrays must agree
    const { completion_ids: _ids, ...noIds } = base;
    expect((await run(noIds)).score).toBe(-1 / 6);
  });

  it("values that are not log-probs, an empty completion, an overflowing sum: unscorable", async () => {
    expect(await run({ ...base, teacher_logprobs: [-0.5, 0.7, -0.5] })).toMatchObject({
      reason: "logprob_error",
      details: { field: "teacher_logprobs", error: "[1]: 0.7 > 0 is not a log-probability" },
    });
    expect((await run({ completion_ids: [], student_logprobs: [], teacher_logprobs: [] })).reason).toBe(
      "no_completion",
    );
    const huge = { student_logprobs: [-1.7e308, -1.7e308], teacher_logprobs: [0, 0] };
    expect(await run(huge, { score: "sum" })).toMatchObject({ score: null, reason: "logprob_error" });
  });

  it("policy trick: padding with tokens both models find near-certain dilutes the mean, not the sum", async () => {
    // an answer with one real disagreement, then the same answer followed by 30 filler tokens ("\n", "the") that
    // student and teacher both predict at log-prob −0.01: each filler token earns ≈ 0
    const answer = { student_logprobs: [-0.2, -0.1, -2.3], teacher_logprobs: [-0.3, -0.1, -4.6] };
    const padded = {
      student_logprobs: [...answer.student_logprobs, ...new Array<number>(30).fill(-0.01)],
      teacher_logprobs: [...answer.teacher_logprobs, ...new Array<number>(30).fill(-0.01)],
    };
    const mean = [(await run(answer)).score!, (await run(padded)).score!];
    expect(mean[0]).toBeCloseTo(-2.4 / 3, 12); // −0.8
    expect(mean[1]).toBeCloseTo(-2.4 / 33, 12); // −0.0727: 11× better for saying nothing more
    const sum = [(await run(answer, { score: "sum" })).score!, (await run(padded, { score: "sum" })).score!];
    expect(sum[0]).toBeCloseTo(-2.4, 12);
    expect(sum[1]).toBeCloseTo(-2.4, 12); // the sum is unmoved: padding buys nothing
  });
});

describe("distill with source http: the teacher's log-probs of the student's token ids (local stub)", () => {
  let srv: ReplayServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });
  const rollout = { prompt_ids: [10, 11], completion_ids: [1, 2, 3], student_logprobs: [-1, -2, -0.5] };
  const opts = (url: string, extra: Record<string, unknown> = {}) => ({
    source: "http",
    baseUrl: `${url}/v1`,
    model: "teacher",
    maxRetries: 0,
    ...extra,
  });
  const entry = (id: number, lp: number) => ({ [String(id)]: { logprob: lp, rank: 1, decoded_token: "x" } });

  it("prompt_logprobs: sends prompt_ids ++ completion_ids and reads each token's log-prob under its own id", async () => {
    srv = await startReplay(() => ({
      json: {
        choices: [
          {
            prompt_logprobs: [
              null,
              entry(11, -4),
              { ...entry(99, -0.1), ...entry(1, -0.5) }, // a top-1 alternative listed first: the token's own id is read
              entry(2, -3),
              entry(3, -0.5),
            ],
          },
        ],
      },
    }));
    const r = await run(rollout, opts(srv.url));
    expect(r).toMatchObject({ score: -1 / 6, token_rewards: [0.5, -1, 0] });
    expect(srv.received[0]!.path).toBe("/v1/completions");
    expect(srv.received[0]!.body).toMatchObject({
      model: "teacher",
      prompt: [10, 11, 1, 2, 3],
      prompt_logprobs: 0,
      max_tokens: 1,
    });
  });

  it("echo: the last completion_ids.length prompt log-probs", async () => {
    srv = await startReplay(() => ({
      json: {
        choices: [{ logprobs: { tokens: ["a", "b", "c", "d", "e"], token_logprobs: [null, -4, -0.5, -3, -0.5] } }],
        usage: { completion_tokens: 0 },
      },
    }));
    const r = await run(rollout, opts(srv.url, { api: "echo" }));
    expect(r.token_rewards).toEqual([0.5, -1, 0]);
    expect(srv.received[0]!.body).toMatchObject({ echo: true, max_tokens: 0, logprobs: 0 });
  });

  it("a teacher that answers for other tokens, fails, or lacks ids: unscorable with the reason", async () => {
    srv = await startReplay((req) =>
      (req.body.prompt as number[])[0] === 10
        ? { json: { choices: [{ prompt_logprobs: [null, entry(11, -1), entry(7, -1), entry(2, -1), entry(3, -1)] }] } }
        : { status: 500, json: { error: "boom" } },
    );
    expect(await run(rollout, opts(srv.url))).toMatchObject({
      reason: "logprob_error",
      details: { error: "prompt_logprobs[2] has no log-prob for token id 1" },
    });
    expect((await run({ ...rollout, prompt_ids: [20] }, opts(srv.url))).reason).toBe("logprob_error");
    expect(await run({ completion_ids: [1] }, opts(srv.url))).toMatchObject({
      reason: "missing_field",
      details: { field: "prompt_ids" },
    });
  });

  it("the fetched teacher array is checked like a given one: a student array of another length is a mismatch", async () => {
    srv = await startReplay(() => ({
      json: { choices: [{ prompt_logprobs: [null, entry(11, -4), entry(1, -0.5), entry(2, -3), entry(3, -0.5)] }] },
    }));
    expect(await run({ ...rollout, student_logprobs: [-1, -2] }, opts(srv.url))).toMatchObject({
      score: null,
      reason: "length_mismatch",
      details: { lengths: { student_logprobs: 2, teacher_logprobs: 3, completion_ids: 3 } },
    });
  });

  it("options: baseUrl and model are required for source http", () => {
    const r = distillVerifier.options.safeParse({ source: "http" });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join("."))).toEqual(["baseUrl", "model"]);
  });
});
