import { describe, expect, it } from "vitest";
import type { Rollout } from "../../core/types.js";
import { likelihoodVerifier, reasoningOf, renderTemplate } from "./index.js";

function run(opts: Record<string, unknown>, rollout: Partial<Rollout>) {
  const fn = likelihoodVerifier.create(likelihoodVerifier.options.parse(opts));
  const r: Rollout = { id: "a", group: "g", completion: "because 6 * 7 = 42", ...rollout };
  return fn({ completion: r.completion as string, reference: r.reference, rollout: r });
}

const L = [Math.log(0.5), Math.log(0.25)];

describe("likelihood verifier over reference_logprobs", () => {
  it("scores each form", async () => {
    expect((await run({ form: "logprob" }, { reference_logprobs: L })).score).toBeCloseTo(Math.log(0.125), 14);
    expect((await run({ form: "mean-logprob" }, { reference_logprobs: L })).score).toBeCloseTo(Math.log(0.125) / 2, 14);
    expect((await run({ form: "mean-prob" }, { reference_logprobs: L })).score).toBeCloseTo(0.375, 14);
    const r = await run({ form: "seq-prob" }, { reference_logprobs: L, completion_tokens: 9 });
    expect(r).toEqual({
      score: expect.closeTo(0.125, 14),
      status: "ok",
      details: { tokens: 2, traceLength: 9, traceUnit: "tokens" },
    });
  });

  it("falls back to code points of the reasoning for the trace length", async () => {
    const r = await run({ form: "logprob", cutMarker: "=" }, { reference_logprobs: L, completion: "x² + 1 = 2" });
    expect(r.details).toMatchObject({ traceLength: 8, traceUnit: "chars" }); // "x² + 1 =" is 8 code points
  });

  it("missing or malformed log-probs are unscorable logprob_error, never 0", async () => {
    for (const lp of [undefined, [], [null], [-1, Number.NaN], [0.5], "x"]) {
      const r = await run({ form: "logprob" }, { reference_logprobs: lp as number[] });
      expect(r.status).toBe("unscorable");
      expect(r.score).toBeNull();
      expect(r.reason).toBe("logprob_error");
    }
  });

  it("debiases with reference_logprobs_noreason and clips (RLPR: clip(0.8 − 0.4, 0, 1))", async () => {
    const opts = { form: "mean-prob", debias: true, clipMin: 0, clipMax: 1 };
    const r = await run(opts, {
      reference_logprobs: [Math.log(0.9), Math.log(0.7)],
      reference_logprobs_noreason: [Math.log(0.5), Math.log(0.3)],
    });
    expect(r.score).toBeCloseTo(0.4, 14);
    expect(r.details).toMatchObject({
      withReasoning: expect.closeTo(0.8, 14),
      withoutReasoning: expect.closeTo(0.4, 14),
    });
    const neg = await run(opts, { reference_logprobs: [Math.log(0.2)], reference_logprobs_noreason: [Math.log(0.6)] });
    expect(neg.score).toBe(0);
    const missing = await run(opts, { reference_logprobs: [Math.log(0.2)] });
    expect(missing).toMatchObject({
      status: "unscorable",
      reason: "logprob_error",
      details: { field: "reference_logprobs_noreason" },
    });
  });

  it("seq-prob underflow stays a number (0), logprob overflow to −∞ is unscorable", async () => {
    expect((await run({ form: "seq-prob" }, { reference_logprobs: [-800] })).score).toBe(0);
    const inf = await run({ form: "logprob" }, { reference_logprobs: [-1e308, -1e308] });
    expect(inf).toMatchObject({ status: "unscorable", reason: "logprob_error" });
  });

  it("validates options: http needs url and model; clipMin <= clipMax; unknown keys rejected", () => {
    expect(likelihoodVerifier.options.safeParse({ form: "logprob", source: "http" }).success).toBe(false);
    expect(
      likelihoodVerifier.options.safeParse({
        form: "logprob",
        source: "http",
        url: "http://127.0.0.1:1/v1/completions",
        model: "m",
      }).success,
    ).toBe(true);
    expect(likelihoodVerifier.options.safeParse({ form: "logprob", clipMin: 1, clipMax: 0 }).success).toBe(false);
    expect(likelihoodVerifier.options.safeParse({ form: "mean" }).success).toBe(false);
    expect(likelihoodVerifier.options.safeParse({ form: "logprob", clip: 1 }).success).toBe(false);
  });
});

describe("prompt template and reasoning cut", () => {
  it("cuts after the last marker, else keeps the whole completion", () => {
    expect(reasoningOf("think <answer>41</answer> no <answer>43</answer>", "<answer>")).toEqual({
      reasoning: "think <answer>41</answer> no <answer>",
      cutFound: true,
    });
    expect(reasoningOf("no marker", "<answer>")).toEqual({ reasoning: "no marker", cutFound: false });
  });
  it("substitutes literally ($ patterns and braces in the text are kept)", () => {
    expect(renderTemplate("Q: {prompt}\nA: {reasoning}", "cost $& {reasoning}?", "it is $1")).toBe(
      "Q: cost $& {reasoning}?\nA: it is $1",
    );
  });
});
