import { afterEach, describe, expect, it } from "vitest";
import type { ComponentResult, Rollout } from "../../core/types.js";
import { startReplay } from "../../client/replay.test-helper.js";
import type { ReplayServer } from "../../client/replay.test-helper.js";
import { belief, beliefContexts, infoGainRewards, infoGainVerifier } from "./info-gain.js";

const run = (rollout: Partial<Rollout>, options: Record<string, unknown> = {}): ComponentResult => {
  const fn = infoGainVerifier.create(infoGainVerifier.options.parse(options));
  return fn({
    completion: "",
    reference: undefined,
    rollout: { id: "a", group: "g", completion: "", ...rollout },
  }) as ComponentResult;
};
const ln = Math.log;

describe("info-gain (IGPO): per-turn gain in the gold answer's probability, outcome on the last turn", () => {
  it("P = [0.1, 0.4, 0.3] (one-token gold answer), outcome 1 → turn_rewards [0.3, −0.1, 1], score 1.2", () => {
    const r = run({ gold_logprobs: [[ln(0.1)], [ln(0.4)], [ln(0.3)]], outcome: 1 });
    expect(r.status).toBe("ok");
    expect(r.turn_rewards![0]).toBeCloseTo(0.3, 14);
    expect(r.turn_rewards![1]).toBeCloseTo(-0.1, 14);
    expect(r.turn_rewards![2]).toBe(1);
    expect(r.score).toBeCloseTo(1.2, 14);
    expect(infoGainRewards([0.1, 0.4, 0.3], 1)).toHaveLength(3);
  });

  it("geo-prob is exp of the mean token log-prob: [ln 0.5, ln 0.125] → 0.25; other forms by option", () => {
    expect(belief("geo-prob", [ln(0.5), ln(0.125)])).toBeCloseTo(0.25, 15);
    expect(belief("mean-prob", [ln(0.5), ln(0.125)])).toBeCloseTo(0.3125, 15);
    const r = run(
      {
        gold_logprobs: [
          [ln(0.5), ln(0.125)],
          [ln(0.5), ln(0.5)],
        ],
        outcome: false,
      },
      { form: "logprob" },
    );
    expect(r.turn_rewards![0]).toBeCloseTo(ln(0.25) - ln(0.0625), 14); // ln 4
    expect(r.turn_rewards![1]).toBe(0);
  });

  it("a chat completion's assistant turns must match; the gold answer's token count must not change", () => {
    const completion = [
      { role: "assistant", content: "search" },
      { role: "tool", content: "…" },
      { role: "assistant", content: "answer" },
    ];
    const gold = [[ln(0.1)], [ln(0.4)]];
    expect(run({ completion, gold_logprobs: gold, outcome: 1 }).status).toBe("ok");
    expect(run({ completion, gold_logprobs: [...gold, [ln(0.5)]], outcome: 1 })).toMatchObject({
      reason: "length_mismatch",
      details: { lengths: { gold_logprobs: 3, assistant_turns: 2 } },
    });
    expect(run({ gold_logprobs: [[ln(0.1)], [ln(0.4), -1]], outcome: 1 }).reason).toBe("length_mismatch");
  });

  it("missing gold log-probs or outcome, bad values: unscorable", () => {
    expect(run({ outcome: 1 })).toMatchObject({ score: null, reason: "logprob_error" });
    expect(run({ gold_logprobs: [[-1]] }).reason).toBe("no_outcome");
    expect(run({ gold_logprobs: [[0.5]], outcome: 1 })).toMatchObject({
      reason: "logprob_error",
      details: { field: "gold_logprobs[0]" },
    });
  });

  it("policy trick: belief that dips and recovers nets the same score; a turn that guesses the answer is paid", () => {
    const monotone = run({ gold_logprobs: [[ln(0.1)], [ln(0.2)], [ln(0.5)]], outcome: 1 });
    const dip = run({ gold_logprobs: [[ln(0.1)], [ln(0.01)], [ln(0.5)]], outcome: 1 });
    expect(monotone.score).toBeCloseTo(dip.score!, 14); // the gains telescope: P_{T−1} − P_0 + outcome
    // the policy's own belief is the signal: a turn that merely restates a guess of the answer (no search) raises
    // P(answer | context) and is rewarded like a useful search. IGPO accepts this; rewardkit documents it.
    const guess = run({ gold_logprobs: [[ln(0.1)], [ln(0.9)]], outcome: 0 });
    expect(guess.turn_rewards![0]).toBeCloseTo(0.8, 14);
  });

  it("shaping: the shaped turn rewards sum to the unshaped minus Φ(s_0); the score is the unshaped sum", () => {
    const r = run(
      { gold_logprobs: [[ln(0.1)], [ln(0.4)], [ln(0.3)]], outcome: 1, step_potentials: [0.5, 0.2, 0.7] },
      { shaping: { type: "potential" } },
    );
    const sum = r.turn_rewards!.reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1.2 - 0.5, 14);
    expect(r.score).toBeCloseTo(1.2, 14);
  });
});

describe("info-gain with source http: the gold answer's log-probs after each turn, from an endpoint (local stub)", () => {
  let srv: ReplayServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });
  const runHttp = async (rollout: Partial<Rollout>, options: Record<string, unknown>): Promise<ComponentResult> => {
    const fn = infoGainVerifier.create(infoGainVerifier.options.parse(options));
    return fn({ completion: "", reference: undefined, rollout: { id: "a", group: "g", completion: "", ...rollout } });
  };
  const opts = (url: string, extra: Record<string, unknown> = {}) => ({
    source: "http",
    baseUrl: `${url}/v1`,
    model: "policy",
    maxRetries: 0,
    ...extra,
  });
  // 3 turns: prompt [7, 8], turns [1, 2] [3, 4] [5, 6], the two-token gold answer [40, 41]
  const rollout = {
    prompt_ids: [7, 8],
    completion_ids: [1, 2, 3, 4, 5, 6],
    turn_token_offsets: [2, 4, 6],
    gold_ids: [40, 41],
    outcome: 1,
  };
  const sent = [
    [7, 8, 40, 41],
    [7, 8, 1, 2, 40, 41],
    [7, 8, 1, 2, 3, 4, 40, 41],
  ];
  // the gold answer's token probabilities given each context: P_t = exp(mean ln p) = [0.25, 0.5, 0.4]
  // (keyed by the prompt's length; 5 and 10 for the other rollouts below)
  const goldP: Record<number, [number, number]> = {
    4: [0.5, 0.125],
    5: [0.5, 0.5],
    6: [0.5, 0.5],
    8: [0.8, 0.2],
    10: [0.5, 0.5],
  };
  const entry = (id: number, lp: number) => ({ [String(id)]: { logprob: lp, rank: 1, decoded_token: "x" } });
  /** vLLM's answer for a prompt of ids: null first, then each position under its own id (other ids via `wrong`). */
  const vllm = (prompt: number[], wrong?: number) => {
    const [p1, p2] = goldP[prompt.length]!;
    const n = prompt.length;
    return {
      choices: [
        {
          prompt_logprobs: prompt.map((id, j) =>
            j === 0
              ? null
              : j === n - 2
                ? { ...entry(99, -0.01), ...entry(id, ln(p1)) } // a likelier alternative listed first
                : j === n - 1
                  ? entry(wrong ?? id, ln(p2))
                  : entry(id, -3),
          ),
        },
      ],
    };
  };

  it("prompt_logprobs: T requests context_t ++ gold_ids, beliefs [0.25, 0.5, 0.4] → [0.25, −0.1, 1], score 1.15", async () => {
    srv = await startReplay((req) => ({ json: vllm(req.body.prompt as number[]) }));
    const r = await runHttp(rollout, opts(srv.url));
    expect(r.status).toBe("ok");
    const beliefs = (r.details as { beliefs: number[] }).beliefs;
    [0.25, 0.5, 0.4].forEach((p, t) => expect(beliefs[t]).toBeCloseTo(p, 14));
    expect(r.turn_rewards![0]).toBeCloseTo(0.25, 14);
    expect(r.turn_rewards![1]).toBeCloseTo(-0.1, 14);
    expect(r.turn_rewards![2]).toBe(1);
    expect(r.score).toBeCloseTo(1.15, 14);
    expect(srv.received.map((q) => q.path)).toEqual(Array(3).fill("/v1/completions"));
    expect(
      srv.received.map((q) => q.body.prompt).sort((a, b) => (a as number[]).length - (b as number[]).length),
    ).toEqual(sent);
    for (const q of srv.received)
      expect(q.body).toMatchObject({ model: "policy", prompt_logprobs: 0, max_tokens: 1, temperature: 0 });
  });

  it("echo: the last |gold_ids| prompt log-probs of each answer, the same rewards", async () => {
    srv = await startReplay((req) => {
      const prompt = req.body.prompt as number[];
      const [p1, p2] = goldP[prompt.length]!;
      const lps: (number | null)[] = prompt.map((_, j) => (j === 0 ? null : -3));
      lps[prompt.length - 2] = ln(p1);
      lps[prompt.length - 1] = ln(p2);
      return {
        json: {
          choices: [{ logprobs: { tokens: prompt.map(String), token_logprobs: lps } }],
          usage: { completion_tokens: 0 },
        },
      };
    });
    const r = await runHttp(rollout, opts(srv.url, { api: "echo" }));
    expect(r.turn_rewards![0]).toBeCloseTo(0.25, 14);
    expect(r.turn_rewards![1]).toBeCloseTo(-0.1, 14);
    expect(r.score).toBeCloseTo(1.15, 14);
    expect(
      srv.received.map((q) => q.body.prompt).sort((a, b) => (a as number[]).length - (b as number[]).length),
    ).toEqual(sent);
    for (const q of srv.received) expect(q.body).toMatchObject({ echo: true, max_tokens: 0, logprobs: 0 });
  });

  it("beliefContexts: the prompt alone, then through the end of turns 1..T−1", () => {
    expect(beliefContexts([7], [1, 2, 3, 4, 5], [2, 4, 5])).toEqual([[7], [7, 1, 2], [7, 1, 2, 3, 4]]);
    expect(beliefContexts([7], [1], [1])).toEqual([[7]]);
  });

  it("a server error after the client's retries, or an answer for other token ids: unscorable logprob_error", async () => {
    srv = await startReplay((req) => {
      const prompt = req.body.prompt as number[];
      if (prompt.length === 6) return { status: 500, json: { error: "boom" } };
      return { json: vllm(prompt, prompt.length === 8 ? 7 : undefined) };
    });
    const failed = await runHttp(rollout, opts(srv.url, { maxRetries: 1, backoffMs: 0 }));
    expect(failed).toMatchObject({ score: null, status: "unscorable", reason: "logprob_error" });
    expect((failed.details as { field: string }).field).toBe("gold_logprobs[1]");
    expect(srv.received.filter((q) => (q.body.prompt as number[]).length === 6).map((q) => q.attempt)).toEqual([1, 2]);
    // contexts of 2, 6 and 8 tokens; the 6-token one (after turn 1) answered under token id 7 for the gold token 41:
    // caught, never a 0
    const three = { ...rollout, completion_ids: [1, 2, 3, 4, 5, 6, 9], turn_token_offsets: [4, 6, 7] };
    expect(await runHttp(three, opts(srv.url))).toMatchObject({
      score: null,
      reason: "logprob_error",
      details: { field: "gold_logprobs[1]", error: "prompt_logprobs[7] has no log-prob for token id 41" },
    });
  });

  it("offsets out of order, past the completion or not one per assistant turn: length_mismatch, no request", async () => {
    srv = await startReplay((req) => ({ json: vllm(req.body.prompt as number[]) }));
    const o = opts(srv.url);
    expect(await runHttp({ ...rollout, turn_token_offsets: [4, 2, 6] }, o)).toMatchObject({
      score: null,
      reason: "length_mismatch",
      details: {
        field: "turn_token_offsets",
        error: expect.stringMatching(/turn_token_offsets\[1\] 2 does not follow/),
      },
    });
    expect(await runHttp({ ...rollout, turn_token_offsets: [2, 4, 7] }, o)).toMatchObject({
      reason: "length_mismatch",
      details: { error: "turn_token_offsets ends at 7, past the 6 completion_ids" },
    });
    expect((await runHttp({ ...rollout, turn_token_offsets: [0, 4, 6] }, o)).reason).toBe("length_mismatch");
    const completion = [
      { role: "assistant", content: "search" },
      { role: "tool", content: "…" },
      { role: "assistant", content: "answer" },
    ];
    expect(await runHttp({ ...rollout, completion }, o)).toMatchObject({
      reason: "length_mismatch",
      details: { lengths: { turn_token_offsets: 3, assistant_turns: 2 } },
    });
    expect(srv.received).toHaveLength(0);
    // two assistant turns, two offsets: scored
    const two = await runHttp({ ...rollout, completion, turn_token_offsets: [2, 6] }, o);
    expect(two.status).toBe("ok");
    expect(two.turn_rewards![0]).toBeCloseTo(0.25, 14);
  });

  it("missing fields or outcome: unscorable before any request", async () => {
    srv = await startReplay((req) => ({ json: vllm(req.body.prompt as number[]) }));
    const o = opts(srv.url);
    for (const field of ["prompt_ids", "completion_ids", "gold_ids", "turn_token_offsets"])
      expect(await runHttp({ ...rollout, [field]: undefined }, o)).toMatchObject({
        score: null,
        reason: "missing_field",
        details: { field },
      });
    expect((await runHttp({ ...rollout, gold_ids: [] }, o)).reason).toBe("missing_field");
    expect((await runHttp({ ...rollout, outcome: undefined }, o)).reason).toBe("no_outcome");
    expect(srv.received).toHaveLength(0);
  });

  it("pure per rollout: a rollout scores the same before and after another; only responses are cached", async () => {
    srv = await startReplay((req) => ({ json: vllm(req.body.prompt as number[]) }));
    const fn = infoGainVerifier.create(infoGainVerifier.options.parse(opts(srv.url)));
    const call = async (r: Partial<Rollout>) =>
      fn({ completion: "", reference: undefined, rollout: { id: "a", group: "g", completion: "", ...r } });
    const first = await call(rollout);
    const other = await call({ ...rollout, completion_ids: [1, 2, 3, 4, 5, 6, 9], turn_token_offsets: [1, 6, 7] });
    expect(other.status).toBe("ok");
    expect(await call(rollout)).toEqual(first);
    // the second rollout's prompt-alone request and all of the repeat's came from the cache: 3 + 2 requests
    expect(srv.received).toHaveLength(5);
  });

  it("options: baseUrl and model are required for source http", () => {
    const r = infoGainVerifier.options.safeParse({ source: "http" });
    expect(r.error!.issues.map((i) => i.path.join("."))).toEqual(["baseUrl", "model"]);
  });
});
